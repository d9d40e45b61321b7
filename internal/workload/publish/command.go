package publish

import (
	"context"
	"strings"

	"github.com/iobench/iobench/internal/inject"
	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/scenario"
	"github.com/iobench/iobench/internal/service"
	"github.com/iobench/iobench/internal/workload"
)

// BuiltinImpl is the name records give the built-in run: the go-publisher impl's code
// (impls/gopublisher), run in iobench's own process with the settings of `iobench publish`.
const BuiltinImpl = "go-publisher"

// RunOne measures one run of `iobench publish` as a one-run suite would, through the
// workload's Run: target's impl and variant, with c's Count, Publishers and Queue on top of the
// variant's settings where they are not zero; or, for the zero Target, the built-in Go
// publisher with every setting of c. broker is the RabbitMQ the command resolved (and stops).
func RunOne(ctx context.Context, target workload.Target, c Config, broker *service.Instance) (*result.Record, error) {
	params := map[string]any{}
	if target.Inst != nil {
		if c.Count > 0 {
			params["count"] = c.Count
		}
		if c.Publishers > 0 {
			params["concurrency"] = int64(c.Publishers)
		}
	}
	if len(c.Inject) > 0 {
		params[inject.Param] = strings.Join(c.Inject, ";")
	}
	r := scenario.Run{ID: Name, Workload: Name, Params: params, Repeat: 1, Repeats: 1,
		Services: map[string]scenario.Service{"broker": {Kind: scenario.ServiceExternal, URL: broker.URL}}}
	if target.Inst != nil {
		r.Impl = target.Name()
	}
	e, done := workload.Single(target, r, c.Command, nil)
	defer done()
	e.Progress = c.Progress
	if _, err := e.Share(brokerKey(r.Services["broker"]), func() (any, func(), error) { return broker, nil, nil }); err != nil {
		return nil, err
	}
	return runTarget(ctx, e, r, c)
}
