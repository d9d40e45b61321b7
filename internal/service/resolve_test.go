package service

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/iobench/iobench/internal/fail"
)

var testDB = Role{Name: "database", Local: "postgres", Embedded: "sqlite",
	Schemes: map[string]string{"postgres": "postgres", "postgresql": "postgres", "sqlite": "sqlite"}}

// TestResolveWithoutServers covers the choices that start no server: an external URL named by
// its scheme, a bad scheme, the embedded SQLite file (removed by Stop), a SQLite URL given in
// PostgreSQL's environment variable, and a service the role does not have.
func TestResolveWithoutServers(t *testing.T) {
	ctx := context.Background()
	inst, err := Resolve(ctx, testDB, Choice{URL: "postgresql://u:secret@db.example:5432/x"}, Options{})
	if err != nil || inst.Name != "postgres" || inst.Kind != KindExternal || inst.Owned {
		t.Fatalf("external: %+v, %v", inst, err)
	}
	if _, err := Resolve(ctx, testDB, Choice{URL: "mysql://u:secret@h/x"}, Options{}); !errors.Is(err, fail.ErrBadInput) ||
		strings.Contains(err.Error(), "secret") || !strings.Contains(err.Error(), "postgres://") {
		t.Fatalf("bad scheme: %v", err)
	}
	inst, err = Resolve(ctx, testDB, Choice{Kind: KindEmbedded}, Options{})
	if err != nil || inst.Name != "sqlite" || !strings.HasPrefix(inst.URL, "sqlite:///") || !inst.Owned {
		t.Fatalf("embedded: %+v, %v", inst, err)
	}
	if _, err := os.Stat(inst.Dir); err != nil {
		t.Fatalf("embedded SQLite's directory: %v", err)
	}
	if err := inst.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(inst.Dir); !os.IsNotExist(err) {
		t.Fatalf("Stop left %s", inst.Dir)
	}
	t.Setenv(EnvName("postgres"), "sqlite:///tmp/given.db")
	if inst, err := Resolve(ctx, testDB, Choice{}, Options{}); err != nil || inst.Name != "sqlite" || inst.URL != "sqlite:///tmp/given.db" {
		t.Fatalf("auto with a SQLite URL in %s: %+v, %v", EnvName("postgres"), inst, err)
	}
	if _, err := Resolve(ctx, testDB, Choice{Service: "redis"}, Options{}); !errors.Is(err, fail.ErrBadInput) {
		t.Fatalf("a service the role lacks: %v", err)
	}
}
