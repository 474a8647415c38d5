import re, statistics, sys
def load(p):
    d={}
    for l in open(p):
        m=re.match(r'BenchmarkGEMM/(\S+?)/(float\d+)/(fwd|bwd)/(\S+)-2\s+\d+\s+\d+ ns/op\s+([\d.]+) GFLOP/s', l)
        if m: d.setdefault((m[1],m[2],m[3],m[4]),[]).append(float(m[5]))
    return {k:statistics.median(v) for k,v in d.items()}
h=load(sys.argv[1]); s=load(sys.argv[2])
print("| shape B×D×Y | dtype | product | drdam AVX-512 | drdam AVX2 | OpenBLAS (Haswell kernels, its default here) | ratio | OpenBLAS (SkylakeX AVX-512 kernels) | drdam AVX-512 that run | ratio |")
print("|---|---|---|---|---|---|---|---|---|---|")
for shape in ["256x1024x8192","500x1000x200000"]:
  for dt in ["float32","float64"]:
    for pr,name in [("fwd","H = X·Wᵀ"),("bwd","Z = G·W")]:
      a=h[(shape,dt,pr,"drdam-avx512")]; a2=h[(shape,dt,pr,"drdam-avx2")]; o=h[(shape,dt,pr,"openblas")]
      b=s[(shape,dt,pr,"drdam-avx512")]; ob=s[(shape,dt,pr,"openblas")]
      print(f"| {shape.replace('x','×')} | {dt} | {name} | {a:.0f} | {a2:.0f} | {o:.0f} | **{a/o:.2f}×** | {ob:.0f} | {b:.0f} | **{b/ob:.2f}×** |")
