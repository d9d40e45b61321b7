package cli

import (
	"time"

	"github.com/spf13/pflag"

	"github.com/iobench/iobench/internal/units"
)

// durationFlag is a pflag.Value that reads durations as wrk does: "10s", "2m", or bare seconds.
type durationFlag struct{ d *time.Duration }

func (f durationFlag) String() string {
	if f.d == nil {
		return "0s"
	}
	return f.d.String()
}

func (f durationFlag) Set(s string) error {
	d, err := units.ParseDuration(s)
	if err != nil {
		return err
	}
	*f.d = d
	return nil
}

func (durationFlag) Type() string { return "duration" }

// DurationVarP adds a wrk-style duration flag.
func DurationVarP(fs *pflag.FlagSet, p *time.Duration, name, short string, def time.Duration, usage string) {
	*p = def
	fs.VarP(durationFlag{p}, name, short, usage)
}
