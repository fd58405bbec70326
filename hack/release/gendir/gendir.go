// Package gendir writes the directories the repository's generators own (docs/reference,
// docs/schema): what they generate, and nothing stale beside it.
package gendir

import (
	"os"
	"path/filepath"
)

// Write replaces the generated files in dir (name → content) and removes the files with
// extension ext (".md", ".json") that it no longer generates, so a page or schema that is
// gone does not linger.
func Write(dir, ext string, files map[string][]byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	old, err := filepath.Glob(filepath.Join(dir, "*"+ext))
	if err != nil {
		return err
	}
	for _, f := range old {
		if _, keep := files[filepath.Base(f)]; !keep {
			if err := os.Remove(f); err != nil {
				return err
			}
		}
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}
