package result

// HTTP2 is what an HTTP/2 run's connections exchanged, over the whole run (warm-up included);
// nil for HTTP/1.1 runs.
type HTTP2 struct {
	Protocol string `json:"protocol"` // "h2c" (prior knowledge) or "h2" (TLS, ALPN)
	Streams  int    `json:"streams"`  // concurrent streams per connection asked (--streams)
	// StreamsAllowed is the lowest SETTINGS_MAX_CONCURRENT_STREAMS a server sent below Streams,
	// which capped them; 0 when none did.
	StreamsAllowed int              `json:"streams_allowed,omitempty"`
	FramesSent     map[string]int64 `json:"frames_sent"`      // by frame type: "headers", "data", "settings", ...
	FramesReceived map[string]int64 `json:"frames_received"`  // likewise
	Resets         map[string]int64 `json:"resets,omitempty"` // RST_STREAM received, by error code ("refused_stream")
	GoAwayRetried  int64            `json:"goaway_retried"`   // streams above a GOAWAY's last id, retried on a new connection
}
