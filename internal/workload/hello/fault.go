package hello

import (
	"github.com/iobench/iobench/internal/fault"
	"github.com/iobench/iobench/internal/scenario"
)

// faultParam is hello's fault parameter: kill-sut only, as it uses no service.
var faultParam = scenario.ParamSpec{Type: scenario.String, Check: fault.CheckParam,
	Doc: "faults during the measured phase: kill-sut@P% (SIGKILL the impl's process group, then start it again), several joined by ;"}
