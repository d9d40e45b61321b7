package engine

import "fmt"

// The engines. The event loop (Linux) runs one goroutine per thread, each locked to its OS thread
// and owning an edge-triggered epoll instance over its connections' non-blocking sockets; the
// goroutine engine runs one goroutine per connection on httpload.Conn. Both account every request
// through run.account, so their results mean the same.
const (
	EngineLoop      = "loop"
	EngineGoroutine = "goroutine"
)

// Engines lists the values Config.Engine takes besides "" (the default).
var Engines = []string{EngineLoop, EngineGoroutine}

// pickEngine returns the engine a run uses and, when it is not the one asked for (or the default),
// a one-line note saying why.
func pickEngine(cfg Config) (kind, note string) {
	if cfg.Engine == EngineGoroutine || cfg.dial != nil { // injected connections are goroutine-only
		return EngineGoroutine, ""
	}
	if cfg.TLS != nil && !cfg.HTTP2 { // crypto/tls needs a net.Conn: the loop's raw non-blocking sockets cannot carry it (h2 bridges them: loop_tls_linux.go)
		note := ""
		if cfg.Engine == EngineLoop {
			note = "engine: the event loop speaks plain http only; this https run used the goroutine engine"
		}
		return EngineGoroutine, note
	}
	if err := loopSupported(); err != nil {
		return EngineGoroutine, fmt.Sprintf("engine: the event loop cannot run here (%v); the goroutine engine ran instead", err)
	}
	return EngineLoop, ""
}
