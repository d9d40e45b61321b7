// Package impls holds the systems under test as data (each folder's impl.yaml and code) and
// embeds them in the iobench binary, so that iobench finds them wherever it runs
// (internal/impl.DefaultRoot unpacks them when no impls folder is at hand).
package impls

import "embed"

// FS is every impl folder of the checkout iobench was built from: go/, node/, php/, python/.
//
//go:embed all:go all:node all:php all:python
var FS embed.FS
