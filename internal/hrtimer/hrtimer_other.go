//go:build !linux

package hrtimer

import (
	"context"
	"time"
)

// Clock serves waits, here on time.Timer.
type Clock struct{}

// New returns a clock; Close stops it.
func New() *Clock { return &Clock{} }

// Until returns at end, or early when ctx is done; at once when end has passed.
func (c *Clock) Until(ctx context.Context, end time.Time) { timerUntil(ctx, end) }

// Close stops the clock.
func (c *Clock) Close() error { return nil }
