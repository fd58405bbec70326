package gitrev

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// A partial clone (`git clone --filter=blob:none`, or a mirror that lost objects) holds every
// tree but not every blob. The build reads only the files under the Flux paths it builds, so a
// commit is not refused for blobs nothing reads: the tree is listed without sizes, the blobs
// the clone holds are sized by `git cat-file --batch-check`, and the others are marked
// missing; reading one fails with ErrMissingBlob, a gap that makes what rests on it UNKNOWN.
// git runs with lazy fetching off (GIT_NO_LAZY_FETCH), so nothing is ever fetched.

// partial reports whether the repository is a partial clone: extensions.partialClone set, or
// a remote marked promisor (what git before 2.40 writes).
func (r *Repo) partial(ctx context.Context) bool {
	out, err := gitCommand(ctx, r.Dir, "config", "--get-regexp", `^(extensions\.partialclone|remote\..*\.promisor)$`).Output()
	if err != nil {
		return false
	}
	for _, l := range strings.Split(string(out), "\n") {
		k, v, _ := strings.Cut(l, " ")
		if strings.HasSuffix(k, ".promisor") && v != "true" {
			continue
		}
		if k != "" && v != "" {
			return true
		}
	}
	return false
}

// lsTreePartial lists commit's tree without `ls-tree -l`: sizes come from cat-file for the
// blobs that are there, and the blobs rev-list reports missing get missingBlob.
func (r *Repo) lsTreePartial(ctx context.Context, commit string) ([]treeEntry, error) {
	out, err := r.run(ctx, nil, "ls-tree", "-r", "-t", "-z", "--full-tree", commit)
	if err != nil {
		return nil, fmt.Errorf("git ls-tree: %w", err)
	}
	var entries []treeEntry
	for i, rec := range strings.Split(string(out), "\x00") {
		if i%checkEvery == 0 && ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		if rec == "" {
			continue
		}
		meta, p, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 {
			return nil, fmt.Errorf("git ls-tree: unexpected line %q", rec)
		}
		entries = append(entries, treeEntry{mode: f[0], typ: f[1], oid: f[2], path: p})
	}
	out, err = r.run(ctx, nil, "rev-list", "--objects", "--missing=print", "--no-walk", commit)
	if err != nil {
		return nil, fmt.Errorf("git rev-list: %w", err)
	}
	missing := map[string]bool{}
	for _, l := range strings.Split(string(out), "\n") {
		if oid, ok := strings.CutPrefix(l, "?"); ok {
			missing[strings.TrimSpace(oid)] = true
		}
	}
	var ask bytes.Buffer
	asked := map[string]bool{}
	for i := range entries {
		e := &entries[i]
		if e.typ != "blob" {
			continue
		}
		if missing[e.oid] {
			e.size = missingBlob
			continue
		}
		if !asked[e.oid] {
			asked[e.oid] = true
			ask.WriteString(e.oid + "\n")
		}
	}
	out, err = r.run(ctx, &ask, "cat-file", "--batch-check=%(objectname) %(objectsize)")
	if err != nil {
		return nil, fmt.Errorf("git cat-file --batch-check: %w", err)
	}
	sizes := make(map[string]int64, len(asked))
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		oid, size, ok := strings.Cut(sc.Text(), " ")
		n, err := strconv.ParseInt(size, 10, 64)
		if !ok || err != nil || n < 0 {
			return nil, fmt.Errorf("git cat-file --batch-check: unexpected line %q", sc.Text())
		}
		sizes[oid] = n
	}
	for i := range entries {
		e := &entries[i]
		if e.typ != "blob" || e.size == missingBlob {
			continue
		}
		n, ok := sizes[e.oid]
		if !ok {
			return nil, fmt.Errorf("git cat-file --batch-check: no size for %q (%s)", e.path, e.oid)
		}
		e.size = n
	}
	return entries, nil
}

// run runs git with stdin (nil for none) and returns its standard output, or an error carrying
// its standard error.
func (r *Repo) run(ctx context.Context, stdin io.Reader, args ...string) ([]byte, error) {
	cmd := gitCommand(ctx, r.Dir, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		return nil, fmt.Errorf("%v: %s", err, strings.TrimSpace(stderr.String()))
	}
	return stdout.Bytes(), nil
}
