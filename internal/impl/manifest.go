package impl

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/iobench/iobench/internal/suggest"
	"github.com/iobench/iobench/internal/units"
)

// ManifestFile is the name of the manifest in an impl's folder.
const ManifestFile = "impl.yaml"

// Languages an impl may be written in: the folders under impls/.
var Languages = []string{"go", "node", "php", "python"}

// Modes of a variant: one operation in flight per process, or many.
var Modes = []string{"sync", "async"}

// Section is what a workload asks of the manifest section (workloads.NAME) of the impls that
// declare it. Each workload registers its own (workload.Register does), so that this package
// names none.
type Section struct {
	Routes bool // the impl serves HTTP: routes required, each a path (docs/IMPLS.md, "The HTTP routes")
	Queues bool // the impl consumes and publishes queues: the queues required
	// Variants checks the per-variant settings (workloads.NAME.variants); nil refuses them.
	Variants func(m *Manifest, field string, w Workload, add func(field, msg, hint string))
	// Topology checks the broker topology (exchange, brokers, databases) and the variants that
	// survive a broker restart; nil refuses them.
	Topology func(m *Manifest, field string, w Workload, add func(field, msg, hint string))
	// Consumers checks the commands run beside the impl (workloads.NAME.consumers); nil refuses
	// them.
	Consumers func(m *Manifest, field string, w Workload, add func(field, msg, hint string))
}

var sections = map[string]Section{}

// RegisterSection makes workload one that manifests may declare, with its section's rules.
func RegisterSection(workload string, s Section) { sections[workload] = s }

// httpWorkloads returns the registered workloads whose impls serve HTTP (their section has
// routes), sorted.
func httpWorkloads() []string {
	var out []string
	for _, w := range Workloads() {
		if sections[w].Routes {
			out = append(out, w)
		}
	}
	return out
}

// Workloads returns the workloads a manifest may declare (those registered), sorted.
func Workloads() []string {
	out := make([]string, 0, len(sections))
	for w := range sections {
		out = append(out, w)
	}
	sort.Strings(out)
	return out
}

// Signals a manifest may name in stop.signal.
var Signals = []string{"INT", "KILL", "QUIT", "TERM"}

// signals are Signals by name, for StopSignal.
var signals = map[string]syscall.Signal{"INT": syscall.SIGINT, "KILL": syscall.SIGKILL, "QUIT": syscall.SIGQUIT, "TERM": syscall.SIGTERM}

// Manifest is an impl.yaml: what the impl is, the variants it can run, what it implements, what it
// needs and how it is installed, started, found ready and stopped. docs/IMPLS.md explains every
// field to impl authors.
type Manifest struct {
	Name        string `yaml:"name"`        // always <language>-<folder>, e.g. "python-pika-publisher"
	Language    string `yaml:"language"`    // one of Languages
	Description string `yaml:"description"` // one line for `iobench impls`
	// StandsInFor names the seed's system the impl stands in for where that system cannot run
	// here ("Aerys NativeReactor"): every verdict and heading that uses its figures names both.
	StandsInFor string              `yaml:"stands_in_for"`
	Variants    []Variant           `yaml:"variants"`  // at least one; the first is the default
	Workloads   map[string]Workload `yaml:"workloads"` // workload id -> what the impl does for it
	Requires    Requires            `yaml:"requires"`
	Install     InstallSpec         `yaml:"install"`
	Start       StartSpec           `yaml:"start"`
	Ready       ReadySpec           `yaml:"ready"`
	Stop        StopSpec            `yaml:"stop"`

	// Dir is the absolute path of the impl's folder (set by Load).
	Dir string `yaml:"-"`
}

// Variant is one selectable way of running the impl: the seed's configuration or a fixed one,
// sync or async. Start hands its name, mode and env to the impl (IOBENCH_VARIANT, IOBENCH_MODE).
type Variant struct {
	Name        string            `yaml:"name"`          // [a-z0-9-], unique in the manifest
	Mode        string            `yaml:"mode"`          // sync or async
	Description string            `yaml:"description"`   // one line
	StandsInFor string            `yaml:"stands_in_for"` // the seed's system this variant stands in for, where it differs from the impl's
	Seed        string            `yaml:"seed"`          // the seed's figure this variant reproduces, if any
	Env         map[string]string `yaml:"env"`           // extra environment for this variant
	// Expect lists the seed flaws (ids of Findings) the variant reproduces on purpose: verify and
	// the report show them as "seed flaw reproduced", not as failures.
	Expect []string `yaml:"expect"`
}

// Workload is what an impl does for one workload: the HTTP routes it serves, the queues it uses,
// or, for publish, each variant's settings.
type Workload struct {
	Routes []string `yaml:"routes"`
	Queues []string `yaml:"queues"`
	// Variants holds a workload's settings of each variant, by variant name (publish's queue and
	// count); the workload's Section checks them.
	Variants map[string]PublishSettings `yaml:"variants"`
	// Exchange is the named exchange the impl's commands (and, as the seed had it, its events)
	// go through, bound to the first queue; nil means the default exchange (routing key = queue
	// name). The workload's Section checks it.
	Exchange *Exchange `yaml:"exchange"`
	// Brokers and Databases are the URL schemes the impl can talk to (amqp, nats; postgres,
	// sqlite); the workload's Section gives the default.
	Brokers   []string `yaml:"brokers"`
	Databases []string `yaml:"databases"`
	// Consumers are commands of the impl's own that iobench may run beside it, by what they
	// consume (cachequeue: a queue route -> the command that takes its messages); the
	// workload's Section checks them, and StartHelper runs one.
	Consumers map[string][]string `yaml:"consumers"`
	// RestartBroker names the variants that survive a restart of their broker mid-run (they
	// reconnect and consume again); the workload's Section checks it.
	RestartBroker []string `yaml:"restart_broker"`
}

// Exchange is an AMQP exchange an impl publishes to: its name, its type (direct, fanout, topic)
// and the routing key that binds the queue and that publishes carry.
type Exchange struct {
	Name       string `yaml:"name"`
	Type       string `yaml:"type"`
	RoutingKey string `yaml:"routing_key"`
}

// PublishSettings are one variant's publish settings: how iobench prepares the queue and counts
// at the broker, and what it hands the impl (IOBENCH_QUEUE, IOBENCH_COUNT, ...).
type PublishSettings struct {
	Queue        string `yaml:"queue"`         // queue name (the seed's)
	QueueDurable bool   `yaml:"queue_durable"` // declare the queue durable
	Persistent   bool   `yaml:"persistent"`    // delivery mode 2
	Confirm      bool   `yaml:"confirm"`       // publisher confirms
	Concurrency  int    `yaml:"concurrency"`   // threads, processes or tasks; 0 = 1
	Count        int    `yaml:"count"`         // messages, the seed's count
}

// Requires lists the impl's prerequisites. Each may carry a hint saying how to get it; the
// toolchains derive one where they can (a PHP extension, a Python module from requirements.txt).
type Requires struct {
	Commands      []Requirement `yaml:"commands"`
	Python        []Requirement `yaml:"python"`
	Node          []Requirement `yaml:"node"`
	PHPExtensions []Requirement `yaml:"php_extensions"`
	PHPLibraries  []Requirement `yaml:"php_libraries"`
}

// Requirement is one prerequisite. For Python, Import is the module to import when it differs
// from Name (the distribution name, e.g. aio-pika -> aio_pika); for a PHP library, File is the
// file a Debian package installs (e.g. /usr/share/php/Symfony/Component/Yaml/autoload.php).
type Requirement struct {
	Name   string `yaml:"name"`
	Import string `yaml:"import"`
	File   string `yaml:"file"`
	Hint   string `yaml:"hint"`
}

// InstallSpec says how the impl's own dependencies are installed into the state directory.
type InstallSpec struct {
	// Venv is a requirements file (relative to the impl folder) installed with pip into a
	// virtualenv owned by iobench.
	Venv string `yaml:"venv"`
	// NPM is a package-lock.json (relative to the impl folder) installed with npm ci, with its
	// package.json, into a folder owned by iobench.
	NPM string `yaml:"npm"`
}

// StartSpec is the impl's command line and fixed environment. The command runs in the impl's
// folder; a first word "iobench" is the running iobench executable, "python" the impl's
// virtualenv interpreter, "node" gets NODE_PATH set to its installed modules; {dir} and {state}
// expand to the impl's folder and state directory. A PHP web app gives PHPFPM instead of Command.
type StartSpec struct {
	Command []string          `yaml:"command"`
	Env     map[string]string `yaml:"env"`
	PHPFPM  *PHPFPMSpec       `yaml:"php_fpm"`
}

// PHPFPMSpec runs a PHP web app the way it is deployed: PHP-FPM with one static pool of its own
// (the impl's process tree, so its cost) behind a private nginx (a service) that listens on
// IOBENCH_LISTEN and hands every request to Script. The pool has IOBENCH_CONCURRENCY workers
// (the run's, else the variant's or start.env's), else one per core; iobench knows when it is
// ready, so the manifest gives no ready.log or ready.tcp.
type PHPFPMSpec struct {
	Root   string `yaml:"root"`   // the document root, relative to the impl folder; default "public"
	Script string `yaml:"script"` // the front controller in Root that serves every request; default "index.php"
	// INI are php.ini settings PHP-FPM starts with (php-fpm -d NAME=VALUE) over the system's
	// php.ini, as a deployment tunes its pool, e.g. opcache.validate_timestamps: "0"; {dir} in a
	// value is the impl's folder (opcache.preload: "{dir}/preload.php").
	INI map[string]string `yaml:"ini"`
	// Extensions, when given, are the only PHP extensions the pool loads, of those PHP-FPM's
	// conf.d enables (e.g. [opcache, curl]), as a production image has only what its app uses;
	// absent, it loads every installed one.
	Extensions []string `yaml:"extensions"`
}

// PHPFPMRoot returns the absolute document root of a php_fpm impl.
func (m *Manifest) PHPFPMRoot() string {
	return filepath.Join(m.Dir, or(m.Start.PHPFPM.Root, "public"))
}

// PHPFPMScript returns the absolute path of a php_fpm impl's front controller.
func (m *Manifest) PHPFPMScript() string {
	return filepath.Join(m.PHPFPMRoot(), or(m.Start.PHPFPM.Script, "index.php"))
}

// ReadySpec says when the started impl is ready: a line it prints matching Log (a regular
// expression; the bus report stream's "ready" is one), or accepting TCP connections on its
// IOBENCH_LISTEN address (TCP: listen).
type ReadySpec struct {
	Log     string `yaml:"log"`
	TCP     string `yaml:"tcp"`
	Timeout string `yaml:"timeout"` // default 30s
}

// StopSpec says how the impl is stopped: Signal to its process group, then SIGKILL after Timeout.
type StopSpec struct {
	Signal  string `yaml:"signal"`  // default TERM
	Timeout string `yaml:"timeout"` // default 5s
}

// ReadyTimeout returns ready.timeout, 30s when not set.
func (m *Manifest) ReadyTimeout() time.Duration { return durationOr(m.Ready.Timeout, 30*time.Second) }

// StopSignal returns stop.signal, SIGTERM when not set.
func (m *Manifest) StopSignal() syscall.Signal {
	if s, ok := signals[strings.TrimPrefix(m.Stop.Signal, "SIG")]; ok {
		return s
	}
	return syscall.SIGTERM
}

// StopTimeout returns stop.timeout, 5s when not set.
func (m *Manifest) StopTimeout() time.Duration { return durationOr(m.Stop.Timeout, 5*time.Second) }

// WorkloadNames returns the workloads the impl declares, sorted.
func (m *Manifest) WorkloadNames() []string {
	out := make([]string, 0, len(m.Workloads))
	for k := range m.Workloads {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Variant returns the named variant, or the first (the default) for an empty name.
func (m *Manifest) Variant(name string) (Variant, bool) {
	for _, v := range m.Variants {
		if name == "" || v.Name == name {
			return v, true
		}
	}
	return Variant{}, false
}

// VariantNames returns the names of the variants in manifest order.
func (m *Manifest) VariantNames() []string {
	out := make([]string, len(m.Variants))
	for i, v := range m.Variants {
		out[i] = v.Name
	}
	return out
}

// VariantsText lists the variants with their modes for listings and messages: "sync, async"
// when each is named after its mode, else "single (sync), ..."; "!" marks a variant that
// expects a seed flaw.
func (m *Manifest) VariantsText() string {
	parts := make([]string, len(m.Variants))
	for i, v := range m.Variants {
		parts[i] = v.Name
		if v.Name != v.Mode {
			parts[i] += " (" + v.Mode + ")"
		}
		if len(v.Expect) > 0 {
			parts[i] += "!"
		}
	}
	return strings.Join(parts, ", ")
}

// UnknownVariant is the one-line error for a variant name m does not have.
func (m *Manifest) UnknownVariant(name string) error {
	hint := suggest.Hint(name, m.VariantNames())
	if hint != "" {
		hint += " "
	}
	return fmt.Errorf("impl %s has no variant %q; %schoose from %s (see iobench impls)", m.Name, name, hint, strings.Join(m.VariantNames(), ", "))
}

func durationOr(s string, def time.Duration) time.Duration {
	if s == "" {
		return def
	}
	d, err := units.ParseDuration(s)
	if err != nil || d == 0 {
		return def
	}
	return d
}

// ErrManifest is matched (errors.Is) by every error of a manifest that cannot be used.
var ErrManifest = errors.New("invalid impl manifest")

// Problem is one thing wrong in a manifest: where, what, and what to do.
type Problem struct {
	Field string // e.g. "variants[1].mode"; empty for the file as a whole
	Msg   string
	Hint  string
}

// String renders the problem as "field: msg (hint)".
func (p Problem) String() string {
	s := p.Msg
	if p.Field != "" {
		s = p.Field + ": " + s
	}
	if p.Hint != "" {
		s += " (" + p.Hint + ")"
	}
	return s
}

// ManifestError lists every problem of one manifest. Its message is one line.
type ManifestError struct {
	Path     string
	Problems []Problem
}

// Error returns "PATH: N problems: p1; p2; ...".
func (e *ManifestError) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = p.String()
	}
	n := "1 problem"
	if len(e.Problems) != 1 {
		n = fmt.Sprintf("%d problems", len(e.Problems))
	}
	return fmt.Sprintf("%s: %s: %s", e.Path, n, strings.Join(parts, "; "))
}

// Is makes errors.Is(err, ErrManifest) true.
func (e *ManifestError) Is(target error) bool { return target == ErrManifest }

// Load reads dir/impl.yaml and validates it; dir becomes the manifest's Dir.
func Load(dir string) (*Manifest, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(abs, ManifestFile)
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, &ManifestError{Path: path, Problems: []Problem{{Msg: "no manifest", Hint: "every impl folder needs an " + ManifestFile + "; see docs/IMPLS.md"}}}
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	m, err := Parse(data, abs)
	if err != nil {
		var me *ManifestError
		if errors.As(err, &me) {
			me.Path = path
		}
		return nil, err
	}
	return m, nil
}

// exampleHint points a manifest author at a working manifest.
const exampleHint = "start from impls/go/hello/impl.yaml; docs/IMPLS.md describes every field"

// Parse decodes and validates a manifest whose folder is dir (used to check the name against the
// folder and that the files it names exist; empty skips those checks). Every problem is reported
// in one *ManifestError.
func Parse(data []byte, dir string) (*Manifest, error) {
	var probs []Problem
	add := func(field, msg, hint string) { probs = append(probs, Problem{field, msg, hint}) }
	fail := func(msg, hint string) (*Manifest, error) {
		add("", msg, hint)
		return nil, &ManifestError{Path: ManifestFile, Problems: probs}
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return fail("not valid YAML: "+oneLine(strings.TrimPrefix(err.Error(), "yaml: ")), "fix the syntax; indentation uses spaces")
	}
	if len(root.Content) == 0 {
		return fail("empty manifest", exampleHint)
	}
	doc := root.Content[0]
	if doc.Kind != yaml.MappingNode {
		return fail("the manifest must be a mapping of keys (name, language, ...)", exampleHint)
	}
	checkKeys(doc, manifestSchema, "", add)
	var m Manifest
	if err := doc.Decode(&m); err != nil {
		var te *yaml.TypeError
		if errors.As(err, &te) {
			for _, e := range te.Errors {
				add("", oneLine(strings.TrimPrefix(e, "yaml: ")), "give the value the type the field takes")
			}
		} else {
			add("", oneLine(err.Error()), "")
		}
	}
	m.Dir = dir
	m.validate(add)
	if len(probs) > 0 {
		return nil, &ManifestError{Path: ManifestFile, Problems: probs}
	}
	return &m, nil
}

// oneLine folds a multi-line message into one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
