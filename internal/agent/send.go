package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/iobench/iobench/internal/httpload"
	"github.com/iobench/iobench/internal/result"
)

// Send posts rec to a collector (iobench collect) at url, with the generator's own HTTP client
// so that the lean image links no other. A refusal comes back as the collector's one-line reason.
func Send(ctx context.Context, url string, rec *result.Record, timeout time.Duration) error {
	target, err := httpload.ParseURL(url)
	if err != nil {
		return fmt.Errorf("--collector: %v", err)
	}
	body, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	req := httpload.RequestSpec{Method: "POST", Target: target, Body: body, Close: true,
		Headers: []httpload.Header{{Name: "Content-Type", Value: "application/json"}}}.Build()
	c, err := httpload.Dial(ctx, target.Addr, timeout)
	if err != nil {
		return fmt.Errorf("cannot reach the collector at %s: %v; is iobench collect running?", url, err)
	}
	defer c.Close()
	c.SetKeepBody(true)
	resp, err := c.Do(req, time.Now().Add(timeout))
	if err != nil {
		return fmt.Errorf("sending the record to %s: %v", url, err)
	}
	if resp.Status/100 != 2 {
		return fmt.Errorf("the collector at %s refused the record (%d): %s", url, resp.Status, strings.TrimSpace(string(resp.Body)))
	}
	return nil
}
