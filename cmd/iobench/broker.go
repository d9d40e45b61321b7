package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/spf13/cobra"

	"github.com/iobench/iobench/internal/cli"
	"github.com/iobench/iobench/internal/impl"
	"github.com/iobench/iobench/internal/service"
	"github.com/iobench/iobench/internal/workload/publish"
)

// brokerFlags are the flags that find the broker and the impls.
type brokerFlags struct {
	amqpURL, stateDir, implsDir, logLevel string
}

func (b *brokerFlags) add(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.StringVar(&b.amqpURL, "amqp-url", "", "use this RabbitMQ (default $IOBENCH_AMQP_URL, the one of 'iobench services up', else one started for the run)")
	fs.StringVar(&b.stateDir, "state-dir", "", "iobench's state directory: services and impl virtualenvs (default $IOBENCH_STATE_DIR, /var/lib/iobench as root)")
	fs.StringVar(&b.implsDir, "impls-dir", "", impl.RootFlagHelp)
	fs.StringVar(&b.logLevel, "log", "warn", "log level on stderr: debug, info, warn")
}

func (b *brokerFlags) logger(w io.Writer) (*slog.Logger, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(b.logLevel)); err != nil {
		return nil, cli.BadInput("--log %q: use debug, info or warn", b.logLevel)
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level})), nil
}

func (b *brokerFlags) root() string {
	if b.implsDir != "" {
		return b.implsDir
	}
	return impl.DefaultRoot()
}

// pubBroker is the RabbitMQ of a run; close stops it when this run started it.
type pubBroker struct {
	url  string
	inst *service.Instance
}

// openBroker resolves the broker (service.Resolve): --amqp-url, else the environment's, the one
// of `services up`, or a private instance started for this run.
func (b *brokerFlags) openBroker(ctx context.Context, log *slog.Logger) (*pubBroker, error) {
	inst, err := service.Resolve(ctx, publish.BrokerRole, service.Choice{URL: b.amqpURL}, service.Options{StateDir: b.stateDir, Logger: log})
	if err != nil {
		return nil, cli.BadInput("%v", err)
	}
	return &pubBroker{url: inst.URL, inst: inst}, nil
}

func (br *pubBroker) roots() func() []int {
	if br.inst == nil {
		return nil
	}
	return br.inst.RootPIDs
}

func (br *pubBroker) versions() map[string]string {
	if br.inst == nil || br.inst.Version == "" {
		return nil
	}
	return map[string]string{"rabbitmq": br.inst.Version}
}

func (br *pubBroker) close(ctx context.Context, log *slog.Logger) {
	if br != nil && br.inst != nil {
		if err := br.inst.Stop(context.WithoutCancel(ctx)); err != nil {
			log.Warn("stopping rabbitmq", "err", err)
		}
	}
}

func (br *pubBroker) label() string {
	if br.inst == nil {
		return "RabbitMQ at " + service.Redact(br.url)
	}
	return fmt.Sprintf("RabbitMQ %s (%s)", br.inst.Version, br.inst.Kind)
}
