// Package plots draws paper-style multi-panel figures with gonum.org/v1/plot
// and saves them as PNG, SVG or PDF (the PDF holds a 300 dpi image, since
// gonum's PDF backend cannot set β or translucent fills; SVG is the vector
// format), and grids of images (ImageGrid: completions beside their queries
// and originals, with titles and labels) as PNG.
//
// A Figure is a grid of Panels laid out row-major, for example rows for the
// query sets "at", "near" and "far" and columns for the dimension D, as in
// Figs. 3 to 6 of Hoover et al., "Dense Associative Memory Through the Lens
// of Random Features". Each Panel holds Series (one coloured line per
// inverse temperature β, with optional error bars, dashed fitted curves and
// dark theoretical bounds), HLines (a red dashed "random guess" baseline) and
// Bands (translucent areas, for instance between a bound and a measured
// line). The Figure draws one legend for all panels in a strip between its
// title and the grid, so the legend never covers data; entries with the same
// label and kind are shown once.
//
// Colours come from a fixed colour-blind-safe palette (Okabe–Ito): a Style
// index picks the same colour, and for markers the same glyph shape, in
// every panel, so a reader can follow one β across the grid.
//
// Log axes show readable power-of-ten labels (10⁻³, 10⁻², …) that never
// overlap; an axis spanning less than one decade still gets at least two
// labelled ticks. Points that cannot be drawn — a non-positive coordinate on
// a log axis, or NaN or ±Inf anywhere — are left out and counted in a small
// note above the panel ("3 points ≤ 0 not shown") unless the Panel has its
// own Note. Error bars whose lower end would fall at or below zero on a log
// axis are cut at a tenth of the point's value. Figure.ShareX and
// Figure.ShareY give all panels (for Y, all panels of one Panel.YGroup, e.g.
// a row) the same axis range, so that panels can be compared by eye;
// Panel.YInclude widens a range to fixed values (0 and ½ for a Hamming
// error), and Panel.XTicks marks an axis at the measured values, as
// the paper does, labelled briefly (5k, 20k, 80k). Figure.Caption adds a wrapped note below the grid, for what the
// error bars are and when a fit is drawn.
//
// No input data makes the package panic: malformed figures (a wrong number
// of panels, series whose X, Y and Err lengths disagree) are reported as
// errors that name the panel and series. Output is deterministic: the same
// Figure gives byte-identical PNG and SVG files. Figure.Save writes through a
// temporary file in the destination directory and renames it into place, so
// a failed save never leaves a half-written file.
package plots
