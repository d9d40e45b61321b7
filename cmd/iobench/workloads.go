package main

// The workloads of this build: each registers itself (package workload) when imported. A new
// workload is one package under internal/workload/ and one line here.
import (
	_ "github.com/iobench/iobench/internal/workload/bus"
	_ "github.com/iobench/iobench/internal/workload/cachequeue"
	_ "github.com/iobench/iobench/internal/workload/fanout"
	_ "github.com/iobench/iobench/internal/workload/hello"
	_ "github.com/iobench/iobench/internal/workload/publish"
	_ "github.com/iobench/iobench/internal/workload/web"
)
