package gobus

import (
	"testing"

	"github.com/iobench/iobench/internal/workload/bus/busproto"
)

// TestRelay checks who joins which leg: the oldest open one, one command per leg, none once
// the legs are closed, and each leg's owner learns who joined it.
func TestRelay(t *testing.T) {
	var r relay
	s1, s2, s3 := newSuccessor(), newSuccessor(), newSuccessor()
	m1, m2 := busproto.Message{ID: "1"}, busproto.Message{ID: "2"}
	if r.join(s1, &m1) {
		t.Fatal("joined with no leg open")
	}
	var a, b leg
	r.openLeg(&a)
	r.openLeg(&b)
	if !r.join(s1, &m1) || !r.join(s2, &m2) {
		t.Fatal("two legs open, but a command could not join one")
	}
	if r.join(s3, &m1) {
		t.Fatal("a third command joined one of two legs")
	}
	if got := r.closeLeg(&a); got != s1 || got.m.ID != "1" {
		t.Fatalf("the oldest leg's successor is %+v, want the first command", got)
	}
	if got := r.closeLeg(&b); got != s2 || got.m.ID != "2" {
		t.Fatalf("the second leg's successor is %+v, want the second command", got)
	}
	r.openLeg(&a)
	if got := r.closeLeg(&a); got != nil {
		t.Fatalf("a reopened leg kept its old successor %+v", got)
	}
	if r.join(s3, &m1) {
		t.Fatal("joined a closed leg")
	}
	s1.hand(nil, nil)
	select {
	case <-s1.done:
	default:
		t.Fatal("hand did not wake the successor")
	}
}
