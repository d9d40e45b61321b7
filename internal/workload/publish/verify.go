package publish

import (
	"context"
	"fmt"
	"strings"
)

// Check is the outcome of verifying one variant of a publisher impl.
type Check struct {
	Variant string
	OK      bool
	Detail  string // what was found, one line
}

// VerifyImpl runs every publish variant of ic.Installation with a small count (ic.Count, 200
// when 0) and checks, at the broker, that every message arrived, that the impl reported what
// it sent, and that the queue's durability and the messages' delivery mode are the variant's.
// Nothing is timed.
func VerifyImpl(ctx context.Context, ic ImplConfig) []Check {
	n := ic.Count
	if n <= 0 {
		n = 200
	}
	var out []Check
	m := ic.Installation.Manifest
	for _, name := range m.VariantNames() {
		_, v, ok := settings(m, name)
		if !ok || ctx.Err() != nil {
			continue
		}
		c := ic
		c.Variant, c.Count = name, min(n, v.Count)
		c.Count = max(c.Count, max(v.Concurrency, 1))
		c.Progress = nil
		rec, err := RunImpl(ctx, c)
		ch := Check{Variant: name}
		var problems []string
		if err != nil {
			problems = append(problems, oneLine(err.Error()))
		}
		if rec != nil {
			p := Section(rec)
			if p.Accepted != int64(c.Count) {
				problems = append(problems, fmt.Sprintf("the broker counted %d of %d messages", p.Accepted, c.Count))
			}
			if p.SelfReported == nil {
				problems = append(problems, `no "result sent=N seconds=S" line`)
			} else if p.SelfReported.Sent != int64(c.Count) {
				problems = append(problems, fmt.Sprintf("reported sent=%d, asked for %d", p.SelfReported.Sent, c.Count))
			}
			wantDurable := "queue durable: " + yesNo(v.QueueDurable)
			wantMode := "delivery mode: " + map[bool]string{true: "persistent", false: "transient"}[v.Persistent]
			var sawDurable, sawMode bool
			for _, s := range p.BrokerChecks {
				sawDurable = sawDurable || strings.HasPrefix(s, wantDurable)
				sawMode = sawMode || strings.HasPrefix(s, wantMode)
			}
			if !sawDurable {
				problems = append(problems, "broker: want "+wantDurable+", got "+strings.Join(p.BrokerChecks, "; "))
			}
			if !sawMode {
				problems = append(problems, "broker: want "+wantMode+", got "+strings.Join(p.BrokerChecks, "; "))
			}
			if len(problems) == 0 {
				ch.Detail = fmt.Sprintf("%d of %d messages counted at the broker; %s; %s", p.Accepted, c.Count, wantDurable, wantMode)
			}
		}
		ch.OK = len(problems) == 0
		if !ch.OK {
			ch.Detail = strings.Join(problems, "; ")
		}
		out = append(out, ch)
	}
	return out
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
