package impl

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/iobench/iobench/impls"
)

// EmbeddedPrefix starts the name of the impls folder unpacked from the binary (Unpack):
// "embedded sha256:…".
const EmbeddedPrefix = "embedded sha256:"

// Unpack writes the impls embedded in the binary (package impls) into the user's cache
// directory, once per content: the folder is named by a hash of every file's path and bytes, so
// a build with other impls never reuses a stale copy. It returns the folder, ready to use.
func Unpack() (string, error) {
	sum, err := hashFS(impls.FS)
	if err != nil {
		return "", err
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "iobench", "impls-"+sum[:16])
	if _, err := os.Stat(filepath.Join(dir, ".complete")); err == nil {
		return dir, nil
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", fmt.Errorf("cannot unpack the embedded impls: %w", err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "impls-unpacking-")
	if err != nil {
		return "", fmt.Errorf("cannot unpack the embedded impls: %w", err)
	}
	defer os.RemoveAll(tmp)
	if err := copyFS(tmp, impls.FS); err != nil {
		return "", fmt.Errorf("cannot unpack the embedded impls: %w", err)
	}
	if err := os.WriteFile(filepath.Join(tmp, ".complete"), []byte(sum+"\n"), 0o644); err != nil {
		return "", fmt.Errorf("cannot unpack the embedded impls: %w", err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, statErr := os.Stat(filepath.Join(dir, ".complete")); statErr == nil {
			return dir, nil // another iobench unpacked the same content first
		}
		return "", fmt.Errorf("cannot unpack the embedded impls: %w", err)
	}
	return dir, nil
}

// Embedded says whether root is a folder Unpack made, and its content hash.
func Embedded(root string) (hash string, ok bool) {
	b, err := os.ReadFile(filepath.Join(root, ".complete"))
	if err != nil {
		return "", false
	}
	return strings.TrimSpace(string(b)), true
}

// RootName says which impls folder ran, as a record keeps it: "embedded sha256:…" for one
// unpacked from the binary, else its absolute path.
func RootName(root string) string {
	if h, ok := Embedded(root); ok {
		return EmbeddedPrefix + h
	}
	if abs, err := filepath.Abs(root); err == nil {
		return abs
	}
	return root
}

// hashFS is the hex SHA-256 of every regular file of fsys, path and bytes, in walk order.
func hashFS(fsys fs.FS) (string, error) {
	h := sha256.New()
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", p, len(b))
		h.Write(b)
		return nil
	})
	return hex.EncodeToString(h.Sum(nil)), err
}

// copyFS writes every file of fsys under dir, folders 0755 and files 0644.
func copyFS(dir string, fsys fs.FS) error {
	return fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
}
