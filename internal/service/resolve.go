package service

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/iobench/iobench/internal/fail"
)

// Role is one service a workload needs (its broker, its database, its store), and what can fill
// it: Local names the server iobench starts from the machine's binaries, Embedded the one that
// runs inside iobench ("nats", or "sqlite": a file in a temporary directory), Schemes the
// service behind each URL scheme an external one may have.
type Role struct {
	Name     string            // the role, for messages: "broker", "database"
	Local    string            // e.g. "rabbitmq"; "" for none
	Embedded string            // e.g. "nats", "sqlite"; "" for none
	Schemes  map[string]string // URL scheme -> service, e.g. "amqp": "rabbitmq", "nats": "nats"
}

// SchemeList returns the role's URL schemes, sorted.
func (r Role) SchemeList() []string {
	out := make([]string, 0, len(r.Schemes))
	for s := range r.Schemes {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// Choice is how a run asks for a role to be filled.
type Choice struct {
	// Kind is KindEmbedded, KindLocal, KindExternal or "" (auto: a server named by the
	// environment, else the local one when installed, else the embedded one).
	Kind Kind
	// Service names the service to use (Ensure: environment, `services up`, or started now),
	// one of the role's; it overrides Kind.
	Service string
	// URL is an external server's (Kind external); its scheme names the service.
	URL string
}

// Resolve fills role as c asks, the one place every workload's services are decided: an
// external URL; a named service through Ensure (its environment variable, the instance of
// `iobench services up`, or one started now and Owned by the caller); embedded; local; or auto.
func Resolve(ctx context.Context, role Role, c Choice, opts Options) (*Instance, error) {
	switch {
	case c.URL != "" || c.Kind == KindExternal:
		return role.external(c.URL)
	case c.Service != "":
		return role.ensure(ctx, c.Service, opts)
	case c.Kind == KindEmbedded:
		return role.ensure(ctx, role.Embedded, opts)
	case c.Kind == KindLocal:
		return role.ensure(ctx, role.Local, opts)
	}
	if name, v := role.fromEnv(); v != "" {
		if other := role.schemeOf(v); other != "" && other != name {
			return role.external(v) // e.g. a SQLite URL in IOBENCH_DATABASE_URL
		}
		return role.ensure(ctx, name, opts)
	}
	if role.Local != "" && (role.Embedded == "" || Installed(role.Local) == nil) {
		return role.ensure(ctx, role.Local, opts)
	}
	return role.ensure(ctx, role.Embedded, opts)
}

// fromEnv returns the first of the role's services that its environment variable names, and
// the variable's value.
func (r Role) fromEnv() (name, value string) {
	for _, name := range r.services() {
		if sp, ok := specs[name]; ok && os.Getenv(sp.env) != "" {
			return name, os.Getenv(sp.env)
		}
	}
	return "", ""
}

// schemeOf returns the service of the role that raw's scheme names, or "".
func (r Role) schemeOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return r.Schemes[strings.ToLower(u.Scheme)]
}

func (r Role) ensure(ctx context.Context, name string, opts Options) (*Instance, error) {
	if name == "" || !slices.Contains([]string{r.Local, r.Embedded}, name) && !r.serves(name) {
		return nil, fail.BadInput("the %s cannot be %q; use %s", r.Name, name, strings.Join(r.services(), " or "))
	}
	if name == "sqlite" {
		return tempSQLite()
	}
	return Ensure(ctx, name, opts)
}

// external describes a server the user runs, by its URL (not probed: the workload's client
// says in its own words why it cannot connect).
func (r Role) external(raw string) (*Instance, error) {
	name := r.schemeOf(raw)
	if name == "" {
		return nil, fail.BadInput("%s URL %s: use %s", r.Name, Redact(raw), strings.Join(schemeExamples(r.SchemeList()), " or "))
	}
	return &Instance{Name: name, Kind: KindExternal, URL: raw}, nil
}

func (r Role) serves(name string) bool {
	for _, s := range r.Schemes {
		if s == name {
			return true
		}
	}
	return false
}

func (r Role) services() []string {
	var out []string
	for _, s := range []string{r.Local, r.Embedded} {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

func schemeExamples(schemes []string) []string {
	out := make([]string, len(schemes))
	for i, s := range schemes {
		out[i] = s + "://"
	}
	return out
}

// tempSQLite is the embedded database: a SQLite file in a temporary directory, removed by Stop.
func tempSQLite() (*Instance, error) {
	dir, err := os.MkdirTemp("", "iobench-sqlite-")
	if err != nil {
		return nil, fmt.Errorf("sqlite: cannot create a temporary directory: %w", err)
	}
	return &Instance{
		Name: "sqlite", Kind: KindEmbedded, URL: "sqlite://" + filepath.Join(dir, "iobench.db"), Owned: true, Dir: dir,
		shutdown: func() error { return nil }, // Stop removes Dir
	}, nil
}

// Missing says, before any run, whether filling role as c asks would need a local server that is
// not installed: nil, or Installed's one-line error naming the package to install. An external
// URL, the embedded service, a server named by the environment, and auto with an embedded
// fallback need nothing installed.
func (r Role) Missing(c Choice) error {
	switch {
	case c.URL != "" || c.Kind == KindExternal || c.Kind == KindEmbedded || r.Local == "":
		return nil
	case c.Service != "" && c.Service != r.Local:
		return nil
	case c.Kind == "" && r.Embedded != "":
		return nil
	}
	if name, _ := r.fromEnv(); name == r.Local {
		return nil
	}
	return Installed(r.Local)
}
