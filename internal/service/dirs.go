package service

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/iobench/iobench/internal/env"
	"io"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// DefaultStateDir returns where iobench keeps service state: $IOBENCH_STATE_DIR, else
// /var/lib/iobench when running as root, else $XDG_STATE_HOME/iobench or ~/.local/state/iobench.
func DefaultStateDir() string {
	if d := os.Getenv(env.StateDir); d != "" {
		return d
	}
	if isRoot() {
		return "/var/lib/iobench"
	}
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "iobench")
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".local", "state", "iobench")
	}
	return filepath.Join(os.TempDir(), "iobench-state")
}

// prepareStateDir creates the state directory if needed and checks that it is writable.
func prepareStateDir(dir string) (string, error) {
	if dir == "" {
		dir = DefaultStateDir()
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("state dir %s: %w", dir, err)
	}
	hint := "pass --state-dir or set IOBENCH_STATE_DIR to a writable directory"
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return "", fmt.Errorf("state dir %s: cannot create it (%v); %s", abs, unwrapPath(err), hint)
	}
	f, err := os.CreateTemp(abs, ".writable-*")
	if err != nil {
		return "", fmt.Errorf("state dir %s is not writable (%v); %s", abs, unwrapPath(err), hint)
	}
	f.Close()
	os.Remove(f.Name())
	return abs, nil
}

// unwrapPath drops the path from a *PathError, which the message already names.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// account is the system user a server runs as when iobench runs as root; nil means "as we are".
type account struct {
	name     string
	uid, gid int
	groups   []uint32
}

// serviceUsers are the users Debian's packages create for each server.
var serviceUsers = map[string]string{
	"rabbitmq":  "rabbitmq",
	"postgres":  "postgres",
	"redis":     "redis",
	"memcached": "memcache",
	"nginx":     "www-data",
}

// serviceAccount returns the account name's server runs as: its own system user when we are root
// (PostgreSQL refuses root; the others are better off without it), else nil.
func serviceAccount(name string) (*account, error) {
	uname := serviceUsers[name]
	if !isRoot() || uname == "" {
		return nil, nil
	}
	u, err := user.Lookup(uname)
	if err != nil {
		if name == "postgres" {
			return nil, fmt.Errorf("postgres: refuses to run as root and there is no user %q; install the postgresql package (scripts/install-services.sh) or run iobench as another user", uname)
		}
		return nil, nil // run as root
	}
	a := &account{name: uname}
	a.uid, _ = strconv.Atoi(u.Uid)
	a.gid, _ = strconv.Atoi(u.Gid)
	if ids, err := u.GroupIds(); err == nil {
		for _, id := range ids {
			if n, err := strconv.Atoi(id); err == nil {
				a.groups = append(a.groups, uint32(n))
			}
		}
	}
	return a, nil
}

func (a *account) credential() *syscall.Credential {
	if a == nil {
		return nil
	}
	return &syscall.Credential{Uid: uint32(a.uid), Gid: uint32(a.gid), Groups: a.groups}
}

// chown gives path (recursively) to the account; nothing to do for nil.
func (a *account) chown(path string) error {
	if a == nil {
		return nil
	}
	return filepath.WalkDir(path, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, a.uid, a.gid)
	})
}

// searchable checks that the account can reach dir: every directory from / down to it must let
// the account through, or the server fails later with a cryptic "permission denied".
func searchable(dir string, a *account) error {
	if a == nil {
		return nil
	}
	for d := dir; ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil {
			return err
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		mode := fi.Mode().Perm()
		pass := mode&0o001 != 0 ||
			(ok && int(st.Uid) == a.uid && mode&0o100 != 0) ||
			(ok && int(st.Gid) == a.gid && mode&0o010 != 0)
		if !pass {
			return fmt.Errorf("state dir %s: user %s cannot enter %s (mode %04o); run 'chmod o+x %s' or pass --state-dir elsewhere", dir, a.name, d, mode, d)
		}
		if d == filepath.Dir(d) {
			return nil
		}
	}
}

// makeInstanceDir creates an empty instance directory owned by the account. A directory of that
// name is a leftover of an instance that died with its port now free: it is removed.
func makeInstanceDir(dir string, a *account) error {
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("removing stale %s: %w", dir, err)
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	return a.chown(dir)
}

// writeFiles writes small configuration files into dir and gives them to the account.
func writeFiles(dir string, a *account, files map[string]string) error {
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return err
		}
		if err := a.chown(p); err != nil {
			return err
		}
	}
	return nil
}

// tail returns the last n non-empty lines of a file (each cut to 300 bytes), or nil.
func tail(path string, n int) []string {
	if path == "" {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	const window = 64 << 10
	if fi, err := f.Stat(); err == nil && fi.Size() > window {
		_, _ = f.Seek(fi.Size()-window, io.SeekStart)
	}
	b, _ := io.ReadAll(f)
	var lines []string
	for _, l := range bytes.Split(b, []byte("\n")) {
		s := strings.TrimSpace(string(l))
		if s == "" {
			continue
		}
		if len(s) > 300 {
			s = s[:300] + "..."
		}
		lines = append(lines, s)
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return lines
}

func isRoot() bool { return os.Geteuid() == 0 }
