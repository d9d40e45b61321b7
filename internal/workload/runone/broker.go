package runone

import (
	"context"
	"io"
	"log/slog"

	"github.com/spf13/pflag"

	"github.com/iobench/iobench/internal/cli"
	"github.com/iobench/iobench/internal/impl"
	"github.com/iobench/iobench/internal/service"
)

// Broker are the flags of a command that needs a RabbitMQ (`iobench publish`, `iobench verify`):
// where the broker is, iobench's state directory, the impls folder and the log level.
type Broker struct {
	AMQPURL, StateDir, ImplsDir, LogLevel string
}

// Add defines the flags on fs.
func (b *Broker) Add(fs *pflag.FlagSet) {
	fs.StringVar(&b.AMQPURL, "amqp-url", "", "use this RabbitMQ (default $IOBENCH_AMQP_URL, the one of 'iobench services up', else one started for the run)")
	fs.StringVar(&b.StateDir, "state-dir", "", "iobench's state directory: services and impl virtualenvs (default $IOBENCH_STATE_DIR, /var/lib/iobench as root)")
	fs.StringVar(&b.ImplsDir, "impls-dir", "", impl.RootFlagHelp)
	fs.StringVar(&b.LogLevel, "log", "warn", "log level on stderr: debug, info, warn")
}

// Logger is the logger on w at the level --log gives.
func (b *Broker) Logger(w io.Writer) (*slog.Logger, error) { return Logger(b.LogLevel, w) }

// Root is the impls folder: --impls-dir, else impl.DefaultRoot.
func (b *Broker) Root() string {
	if b.ImplsDir != "" {
		return b.ImplsDir
	}
	return impl.DefaultRoot()
}

// Open resolves the broker of role (service.Resolve): --amqp-url, else the environment's, the one
// of `services up`, or a private instance started for this run, which stop stops. A broker that
// cannot be had is bad input.
func (b *Broker) Open(ctx context.Context, role service.Role, log *slog.Logger) (inst *service.Instance, stop func(), err error) {
	inst, err = service.Resolve(ctx, role, service.Choice{URL: b.AMQPURL}, service.Options{StateDir: b.StateDir, Logger: log})
	if err != nil {
		return nil, nil, cli.BadInput("%v", err)
	}
	return inst, func() {
		if err := inst.Stop(context.WithoutCancel(ctx)); err != nil {
			log.Warn("stopping rabbitmq", "err", err)
		}
	}, nil
}
