package dist

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
)

// ChecksumsFile is the file goreleaser writes beside the archives, listing all of them.
const ChecksumsFile = "checksums.txt"

// checksumLine is one line as `sha256sum -c` reads it in text mode and as goreleaser writes
// it: 64 lowercase hex digits, two spaces, a file name without a directory.
var checksumLine = regexp.MustCompile(`^([0-9a-f]{64})  ([^/\\\s]+)$`)

// Checksums parses dir's checksums.txt into sums by file name.
func (b *Build) Checksums() (map[string]string, error) {
	return ReadChecksums(filepath.Join(b.dir, ChecksumsFile))
}

// ReadChecksums parses a checksums file strictly: every line "<sha256>  <file>" ending in a
// newline, no file twice. A line sha256sum would read differently (a `*` binary marker, one
// space, a path, a carriage return) is an error, not skipped.
func ReadChecksums(path string) (map[string]string, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading goreleaser output: %w", err)
	}
	if len(raw) == 0 || raw[len(raw)-1] != '\n' {
		return nil, fmt.Errorf("%s: empty or not ending in a newline", path)
	}
	sums := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for sc.Scan() {
		m := checksumLine.FindStringSubmatch(sc.Text())
		if m == nil {
			return nil, fmt.Errorf("%s: malformed line %q", path, sc.Text())
		}
		if _, dup := sums[m[2]]; dup {
			return nil, fmt.Errorf("%s: %s is listed twice", path, m[2])
		}
		sums[m[2]] = m[1]
	}
	return sums, sc.Err()
}

// WriteChecksums writes sums (sha256 by file name) to path in the same format, sorted by file
// name as goreleaser sorts checksums.txt.
func WriteChecksums(path string, sums map[string]string) error {
	names := make([]string, 0, len(sums))
	for n := range sums {
		names = append(names, n)
	}
	sort.Strings(names)
	var buf bytes.Buffer
	for _, n := range names {
		line := sums[n] + "  " + n
		if !checksumLine.MatchString(line) {
			return fmt.Errorf("%s: cannot list %q with sha256 %q", path, n, sums[n])
		}
		buf.WriteString(line + "\n")
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}
