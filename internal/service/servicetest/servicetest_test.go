package servicetest

import (
	"context"
	"os"
	"testing"

	"github.com/iobench/iobench/internal/service"
)

func TestMain(m *testing.M) {
	// Exercise the private-instance path even under `make test`, which exports shared URLs; the
	// state dir is private too, so no `services up` instance is picked either.
	os.Unsetenv("IOBENCH_REDIS_URL")
	dir, err := os.MkdirTemp("", "servicetest-")
	if err != nil {
		panic(err)
	}
	os.Chmod(dir, 0o755)
	os.Setenv("IOBENCH_STATE_DIR", dir)
	code := run(m)
	os.RemoveAll(dir)
	os.Exit(code)
}

func TestURLOncePerBinary(t *testing.T) {
	a := Instance(t, "redis")
	b := Instance(t, "redis")
	if a != b || URL(t, "redis") != a.URL {
		t.Fatalf("two instances for one binary: %v, %v", a, b)
	}
	if a.Kind != service.KindLocal || !a.Owned {
		t.Errorf("instance = %+v; want a private local one", a)
	}
}

func TestStopAll(t *testing.T) {
	inst := Instance(t, "nats")
	if err := StopAll(); err != nil {
		t.Fatal(err)
	}
	if inst.Stop(context.Background()) != nil {
		t.Error("stopping twice must be harmless")
	}
	if Instance(t, "nats") == inst {
		t.Error("StopAll did not forget the instance")
	}
}
