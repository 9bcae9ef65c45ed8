package tex

import "github.com/leakaudit/leakaudit/tex/font"

// Scaled is a TeX dimension in scaled points (2^-16 pt), as the font
// metrics give it.
type Scaled = font.Scaled

// Unity is one point in scaled points.
const Unity = font.Unity
