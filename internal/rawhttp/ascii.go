package rawhttp

import "github.com/iobench/iobench/internal/httpbytes"

// parseDecimal parses a non-negative decimal below 2^62, without allocating.
func parseDecimal(b []byte) (int64, bool) { return httpbytes.ParseDecimal(b, 1<<62) }
