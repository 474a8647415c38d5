//go:build !purego

#include "textflag.h"

// func trigChain64(h *float64, q int, x, tc, ts, sn, cs *float64, n, r int, acc float64) (int, float64)
//
// The row-by-row pass of TrigLane64 (hand-written, not generated): from
// row r, while |x[r]| ≤ 2^29 (NaN included),
//
//	acc = fma(ts[r], sn[r], fma(tc[r], cs[r], acc))
//	h[r*q] = fma(-tc[r], sn[r], ts[r]*cs[r])
//
// with the operations, in the order, of the TrigBlock64 kernels. Returns
// the first row not done (n, or a row beyond the fast range) and acc.
TEXT ·trigChain64(SB), NOSPLIT, $0-96
	MOVQ h+0(FP), DI
	MOVQ q+8(FP), R8
	SHLQ $3, R8
	MOVQ x+16(FP), SI
	MOVQ tc+24(FP), R9
	MOVQ ts+32(FP), R10
	MOVQ sn+40(FP), R11
	MOVQ cs+48(FP), R12
	MOVQ n+56(FP), CX
	MOVQ r+64(FP), AX
	VMOVSD acc+72(FP), X0
	MOVQ AX, DX
	IMULQ R8, DX
	ADDQ DX, DI
	MOVQ $0x7fffffffffffffff, DX
	VMOVQ DX, X6
	MOVQ $0x41c0000000000000, DX
	VMOVQ DX, X7
loop:
	CMPQ AX, CX
	JGE done
	VMOVSD (SI)(AX*8), X1
	VANDPD X6, X1, X1
	VUCOMISD X7, X1
	JHI done
	VMOVSD (R9)(AX*8), X2
	VMOVSD (R10)(AX*8), X3
	VMOVSD (R12)(AX*8), X4
	VMOVSD (R11)(AX*8), X5
	VFMADD231SD X4, X2, X0
	VFMADD231SD X5, X3, X0
	VMULSD X4, X3, X8
	VFNMADD231SD X5, X2, X8
	VMOVSD X8, (DI)
	ADDQ R8, DI
	INCQ AX
	JMP loop
done:
	MOVQ AX, ret+80(FP)
	VMOVSD X0, ret1+88(FP)
	VZEROUPPER
	RET

// func gatherLane64(x, h *float64, q int, bias *float64, n int)
//
// x[r] = h[r*q] + bias[r] (bias nil: x[r] = h[r*q]) for r < n.
TEXT ·gatherLane64(SB), NOSPLIT, $0-40
	MOVQ x+0(FP), DI
	MOVQ h+8(FP), SI
	MOVQ q+16(FP), R8
	SHLQ $3, R8
	MOVQ bias+24(FP), R9
	MOVQ n+32(FP), CX
	XORQ AX, AX
	TESTQ R9, R9
	JZ nobias
bias:
	CMPQ AX, CX
	JGE done
	VMOVSD (SI), X0
	VADDSD (R9)(AX*8), X0, X0
	VMOVSD X0, (DI)(AX*8)
	ADDQ R8, SI
	INCQ AX
	JMP bias
nobias:
	CMPQ AX, CX
	JGE done
	MOVQ (SI), DX
	MOVQ DX, (DI)(AX*8)
	ADDQ R8, SI
	INCQ AX
	JMP nobias
done:
	RET

// func trigChain32(h *float32, q int, x, tc, ts, sn, cs *float32, n, r int, acc float32) (int, float32)
//
// trigChain64 in float32 (|x[r]| ≤ 2^20), with the operations of the
// TrigBlock32 kernels.
TEXT ·trigChain32(SB), NOSPLIT, $0-92
	MOVQ h+0(FP), DI
	MOVQ q+8(FP), R8
	SHLQ $2, R8
	MOVQ x+16(FP), SI
	MOVQ tc+24(FP), R9
	MOVQ ts+32(FP), R10
	MOVQ sn+40(FP), R11
	MOVQ cs+48(FP), R12
	MOVQ n+56(FP), CX
	MOVQ r+64(FP), AX
	VMOVSS acc+72(FP), X0
	MOVQ AX, DX
	IMULQ R8, DX
	ADDQ DX, DI
	MOVL $0x7fffffff, DX
	VMOVD DX, X6
	MOVL $0x49800000, DX
	VMOVD DX, X7
loop32:
	CMPQ AX, CX
	JGE done32
	VMOVSS (SI)(AX*4), X1
	VANDPS X6, X1, X1
	VUCOMISS X7, X1
	JHI done32
	VMOVSS (R9)(AX*4), X2
	VMOVSS (R10)(AX*4), X3
	VMOVSS (R12)(AX*4), X4
	VMOVSS (R11)(AX*4), X5
	VFMADD231SS X4, X2, X0
	VFMADD231SS X5, X3, X0
	VMULSS X4, X3, X8
	VFNMADD231SS X5, X2, X8
	VMOVSS X8, (DI)
	ADDQ R8, DI
	INCQ AX
	JMP loop32
done32:
	MOVQ AX, ret+80(FP)
	VMOVSS X0, ret1+88(FP)
	VZEROUPPER
	RET

// func gatherLane32(x, h *float32, q int, bias *float32, n int)
//
// gatherLane64 in float32.
TEXT ·gatherLane32(SB), NOSPLIT, $0-40
	MOVQ x+0(FP), DI
	MOVQ h+8(FP), SI
	MOVQ q+16(FP), R8
	SHLQ $2, R8
	MOVQ bias+24(FP), R9
	MOVQ n+32(FP), CX
	XORQ AX, AX
	TESTQ R9, R9
	JZ nobias32
bias32:
	CMPQ AX, CX
	JGE done32g
	VMOVSS (SI), X0
	VADDSS (R9)(AX*4), X0, X0
	VMOVSS X0, (DI)(AX*4)
	ADDQ R8, SI
	INCQ AX
	JMP bias32
nobias32:
	CMPQ AX, CX
	JGE done32g
	MOVL (SI), DX
	MOVL DX, (DI)(AX*4)
	ADDQ R8, SI
	INCQ AX
	JMP nobias32
done32g:
	RET
