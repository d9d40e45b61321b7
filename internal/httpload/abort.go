package httpload

// Abort closes the socket (under TLS too, without a close_notify) so that a Do blocked in another goroutine returns at once with an error.
// Unlike Close it touches no other state of c, so it is safe to call while Do runs; the goroutine
// that owns c must still call Close.
func (c *Conn) Abort() error { return c.raw.Close() }
