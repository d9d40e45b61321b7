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
	StandsInFor string `yaml:"stands_in_for"`
	// Differs says, a line each, how the impl differs from the seed's system it reproduces or
	// stands in for, or, for an impl that stands for no seed system, what it is instead. Every
	// manifest has the key; an empty list means none known. The seed sections of the report
	// show it.
	Differs  []string  `yaml:"differs"`
	Variants []Variant `yaml:"variants"` // at least one; the first is the default
	// Workloads holds, by workload id, the impl's section for it (workloads.NAME), decoded into
	// the type the workload registered (SectionOf returns it typed). Parse decodes it.
	Workloads map[string]any `yaml:"-"`
	Requires  Requires       `yaml:"requires"`
	Install   InstallSpec    `yaml:"install"`
	Start     StartSpec      `yaml:"start"`
	Ready     ReadySpec      `yaml:"ready"`
	Stop      StopSpec       `yaml:"stop"`

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
	decode(doc, &m, add)
	m.Workloads = decodeSections(doc, add)
	m.Dir = dir
	m.validate(add)
	checkDiffers(doc, add)
	if len(probs) > 0 {
		return nil, &ManifestError{Path: ManifestFile, Problems: probs}
	}
	return &m, nil
}

// decode decodes n into v, adding a problem for every value of the wrong type (the YAML
// decoder's message, with its line).
func decode(n *yaml.Node, v any, add ProblemFunc) {
	err := n.Decode(v)
	var te *yaml.TypeError
	switch {
	case errors.As(err, &te):
		for _, e := range te.Errors {
			add("", oneLine(strings.TrimPrefix(e, "yaml: ")), "give the value the type the field takes")
		}
	case err != nil:
		add("", oneLine(err.Error()), "")
	}
}

// decodeSections decodes each section under the manifest's workloads: into the type its workload
// registered; nil for a workload not registered (validate reports it).
func decodeSections(doc *yaml.Node, add ProblemFunc) map[string]any {
	var raw struct {
		Workloads map[string]yaml.Node `yaml:"workloads"`
	}
	decode(doc, &raw, add) // only the workloads: the manifest's other keys were decoded before
	out := make(map[string]any, len(raw.Workloads))
	for name, n := range raw.Workloads {
		sec, ok := sections[name]
		if !ok {
			out[name] = nil
			continue
		}
		v := sec.new()
		decode(&n, v, add)
		out[name] = v
	}
	return out
}

// oneLine folds a multi-line message into one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
