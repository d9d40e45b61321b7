package cachequeue

import (
	"slices"
	"testing"
)

// TestCheckAnswer covers verify's check of a route's body: /cache/ wants the counter's value
// and a newline, /queue/ an empty body.
func TestCheckAnswer(t *testing.T) {
	for _, tc := range []struct {
		route, body string
		want        []string
	}{
		{"/cache/redis", "0\n", nil},
		{"/cache/redis", "12\n", nil},
		{"/cache/redis", "12", []string{`GET /cache/redis: body "12", want the counter's value and a newline`}},
		{"/cache/fake", "\n", []string{`GET /cache/fake: body "\n", want the counter's value and a newline`}},
		{"/queue/zmq", "", nil},
		{"/queue/zmq", "ok\n", []string{`GET /queue/zmq: body "ok\n", want an empty body`}},
	} {
		if got := checkAnswer(tc.route, nil, tc.body); !slices.Equal(got, tc.want) {
			t.Errorf("checkAnswer(%s, %q) = %q; want %q", tc.route, tc.body, got, tc.want)
		}
	}
}
