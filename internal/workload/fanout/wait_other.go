//go:build !linux

package fanout

import (
	"context"
	"time"
)

// Waits is a clock for waits of one constant length, here on time.Timer.
type Waits struct{ d time.Duration }

// NewWaits returns a clock for waits of d; Close stops it.
func NewWaits(d time.Duration) *Waits { return &Waits{d: d} }

// Wait returns d after its call, or early when ctx is done.
func (w *Waits) Wait(ctx context.Context) { timerWait(ctx, w.d) }

// Close stops the clock.
func (w *Waits) Close() error { return nil }
