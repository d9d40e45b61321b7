package publish_test

import (
	"testing"

	"github.com/iobench/iobench/internal/impl"
	"github.com/iobench/iobench/internal/service/servicetest"
	"github.com/iobench/iobench/internal/workload/publish"
)

// install installs a repo impl into the default state directory, where the virtualenv stays
// cached for the next run.
func install(t *testing.T, name string) *impl.Installation {
	t.Helper()
	m, err := impl.Find("../../../impls", name)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := impl.Install(t.Context(), m, impl.InstallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := inst.Check(t.Context()); err != nil {
		t.Fatal(err)
	}
	return inst
}

// TestPythonImplsEndToEnd runs every variant of the seed's Python publishers on a small count:
// the broker must count every message, the impl must report what it sent, and durability and
// delivery mode, read back from the broker, must be the variant's.
func TestPythonImplsEndToEnd(t *testing.T) {
	url := servicetest.URL(t, "rabbitmq")
	for _, name := range []string{"python-pika-publisher", "python-aio-pika-publisher"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			inst := install(t, name)
			checks := publish.VerifyImpl(t.Context(), publish.ImplConfig{Installation: inst, URL: url, Count: 150})
			if len(checks) != len(inst.Manifest.Variants) {
				t.Fatalf("%d checks for %d variants", len(checks), len(inst.Manifest.Variants))
			}
			for _, c := range checks {
				if !c.OK {
					t.Errorf("%s: %s", c.Variant, c.Detail)
				}
			}
		})
	}
}

func TestImplRecord(t *testing.T) {
	t.Parallel()
	inst := install(t, "python-pika-publisher")
	rec, err := publish.RunImpl(t.Context(), publish.ImplConfig{
		Installation: inst, Variant: "processes", URL: servicetest.URL(t, "rabbitmq"), Count: 1001, Concurrency: 2,
		Queue: queueName(t),
	})
	if err != nil {
		t.Fatal(err)
	}
	p := publish.Section(rec)
	if rec.Impl != "python-pika-publisher" || rec.Variant != "processes" || rec.Mode != "sync" || p.Variant != "processes" || !p.ConnectAfterGo || p.Accepted != 1001 || p.SelfReported == nil || p.SelfReported.Sent != 1001 {
		t.Fatalf("record %+v publish %+v", rec, p)
	}
	var sut bool
	for _, pr := range rec.Processes {
		if pr.Role == "sut" && pr.CPUUser+pr.CPUSystem > 0 {
			sut = true
		}
	}
	if !sut {
		t.Fatalf("no CPU for the impl's process tree: %+v", rec.Processes)
	}
	if _, err := publish.RunImpl(t.Context(), publish.ImplConfig{Installation: inst, Variant: "nope", URL: "amqp://x/"}); err == nil {
		t.Fatal("unknown variant accepted")
	}
}
