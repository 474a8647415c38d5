// Package imageio turns images into patterns for the image-completion
// experiments of Hoover et al., "Dense Associative Memory Through the Lens of
// Random Features" (NeurIPS 2024, §4.2 and the appendix "TinyImagenet
// Experimental Details"), and patterns back into images and figure grids.
//
// # Patterns
//
// An image of H×W pixels with C = 3 channels (R, G, B) is a pattern of
// D = H·W·C values in H×W×C order: the value of channel k of the pixel at
// row r, column c is at index (r·W + c)·3 + k. A channel value v ∈ {0, …, 255}
// is stored as v/255/√D, so every pattern lies in [0, 1/√D]^D as in the
// paper. Back to pixels, a value x becomes round(x·255·√D), clipped to
// [0, 255]. The pixel values of an [Image] are always whole 8-bit levels, so
// pattern → image → pattern is exact.
//
// # Reading
//
// [FromImage] converts any image.Image (grayscale, paletted, 8- or 16-bit,
// with or without alpha): transparent pixels are composited on white, then
// the image is scaled to cover H×W and its centre is cut out (see
// [FromImage] for the exact recipe, which is ImageMagick's
// "-background white -alpha remove -resize WxH^ -gravity center -extent WxH"
// with a Catmull–Rom filter). [Load] reads PNG and JPEG files and folders,
// [LoadCIFAR] the CIFAR-10 binary batches and [LoadTinyImageNet] the Tiny
// ImageNet folder layout. [Patterns] stacks images into the K×D row-major
// matrix that the dam package stores.
//
// # Occlusion
//
// Masks are []bool of length D in the same H×W×C order, true where a
// coordinate is visible (clamped during the energy descent, the Clamp of
// dam.RecallOptions) and false where it is occluded; all three channels of a
// pixel share their visibility. [OccludeBottom], [OccludeRandom] and
// [OccludeBox] build masks ([ParseOcclusion] from the command line's
// bottom:F, random:F and box:T,L,H,W), and [Apply] sets the occluded
// coordinates of a query to a fill value (0 in the paper).
//
// Reconstructions are measured in 0–255 pixel units by metrics.RMSE255, and
// drawn beside their queries by plots.ImageGrid.
package imageio
