package dist

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// Entries lists the regular files of a .tar.gz or .zip archive by their path inside it, the
// entries `flux plugin install` and krew can extract (both skip links and directories).
func Entries(path string) ([]string, error) {
	switch {
	case strings.HasSuffix(path, ".tar.gz"):
		return tarEntries(path)
	case strings.HasSuffix(path, ".zip"):
		return zipEntries(path)
	}
	return nil, fmt.Errorf("%s is neither .tar.gz nor .zip", path)
}

func tarEntries(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var names []string
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return names, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if h.Typeflag == tar.TypeReg {
			names = append(names, h.Name)
		}
	}
}

func zipEntries(path string) ([]string, error) {
	r, err := zip.OpenReader(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	defer r.Close()
	var names []string
	for _, f := range r.File {
		if f.Mode().IsRegular() {
			names = append(names, f.Name)
		}
	}
	return names, nil
}
