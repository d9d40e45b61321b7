package main

import "github.com/iobench/iobench/internal/impls/gobus"

func init() { serveSubcommands = append(serveSubcommands, gobus.ServeCommand) }
