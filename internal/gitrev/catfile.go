package gitrev

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
)

// catFile is one long-lived `git cat-file --batch-command` process through which everything
// a comparison reads from git goes: both revisions resolved, both trees listed (tree objects
// read one directory level at a time, blob sizes asked for in one batch) and every file read.
// A gate thus starts one git process for its revisions, not one per command: on a one-file
// change the process starts were a quarter of the warm gate's CPU time. It is started at the
// first request and stopped when the context it was made with ends, or by close. Requests are
// serialised; a failed one stops the process, and the next starts a fresh one (each reader
// keeps its own failure: the other revision's reads are not failed by it), until the context
// ends or close.
type catFile struct {
	ctx    context.Context
	cancel context.CancelFunc
	repo   *Repo

	mu     sync.Mutex
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr bytes.Buffer
	err    error // sticky: closed, or the context ended

	// known are the tree objects and blob sizes read so far, for both revisions' listings.
	known objectMemo
}

// objectMemo keeps the tree objects and blob sizes a catFile has read, by object id. An object
// id names its content, so it answers for that id in any revision: the candidate's listing
// asks git only for the trees and sizes the base's did not (the directories along the changed
// paths and the changed blobs). asked counts the ids asked of git (trees below a root, and
// blob sizes).
type objectMemo struct {
	mu    sync.Mutex
	trees map[string]knownTree
	sizes map[string]int64
	asked int
}

// knownTree is a tree object read: its entries and its size.
type knownTree struct {
	entries []rawEntry
	size    int64
}

func (m *objectMemo) tree(oid string) (knownTree, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	kt, ok := m.trees[oid]
	return kt, ok
}

func (m *objectMemo) size(oid string) (int64, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.sizes[oid]
	return s, ok
}

func (m *objectMemo) putTree(oid string, kt knownTree) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.trees == nil {
		m.trees = map[string]knownTree{}
	}
	m.trees[oid] = kt
}

func (m *objectMemo) putSize(oid string, size int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.sizes == nil {
		m.sizes = map[string]int64{}
	}
	m.sizes[oid] = size
}

func (m *objectMemo) ask(n int) {
	m.mu.Lock()
	m.asked += n
	m.mu.Unlock()
}

func newCatFile(ctx context.Context, repo *Repo) *catFile {
	ctx, cancel := context.WithCancel(ctx)
	return &catFile{ctx: ctx, cancel: cancel, repo: repo}
}

// answer is cat-file's header for one request: the object's id, type and size, or missing
// (the name names no object, or one the clone does not hold) or ambiguous.
type answer struct {
	oid, typ           string
	size               int64
	missing, ambiguous bool
}

// close stops the process and waits for it.
func (c *catFile) close() {
	c.cancel()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stop(errClosed)
}

// abort stops the process for good, making err every later request's error.
func (c *catFile) abort(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stop(err)
}

// stop ends the process, if any; err, unless nil, becomes every later request's error.
func (c *catFile) stop(err error) {
	if c.err == nil {
		c.err = err
	}
	if c.cmd != nil {
		_ = c.in.Close()
		if c.cmd.Process != nil {
			_ = c.cmd.Process.Kill()
		}
		_ = c.cmd.Wait()
		c.cmd = nil
	}
}

// start starts the process if it does not run. Called with mu held.
func (c *catFile) start() error {
	if c.err != nil {
		return c.err
	}
	if err := c.ctx.Err(); err != nil {
		c.stop(context.Cause(c.ctx))
		return c.err
	}
	if c.cmd != nil {
		return nil
	}
	// --buffer: git writes its answers when told to flush (at the end of each batch), not
	// one write per answer, which cost a wake-up of this process per object.
	cmd := gitCommand(c.ctx, c.repo.Dir, "cat-file", "--batch-command", "--buffer")
	cmd.Stderr = &c.stderr
	in, out, err := startPiped(cmd)
	if err != nil {
		return err
	}
	c.cmd, c.in, c.out = cmd, in, bufio.NewReaderSize(out, 64<<10)
	return nil
}

// startPiped starts cmd with pipes to its standard input and from its standard output.
func startPiped(cmd *exec.Cmd) (io.WriteCloser, io.ReadCloser, error) {
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, err
	}
	return in, out, nil
}

// pipeBuf is the least a pipe holds (one page) before a write to it waits for the reader.
const pipeBuf = 4096

// checkName refuses what cannot be sent on one line of cat-file's input.
func checkName(name string) error {
	if name == "" || strings.ContainsAny(name, "\n\r\x00") {
		return fmt.Errorf("%q is not an object name", name)
	}
	return nil
}

// batch sends one command per name ("info" or "contents"), written while the answers are
// read so neither pipe fills, and calls each with the index of its name and its answer; for
// "contents" each must read exactly a.size bytes from r (unless a is missing or ambiguous),
// the newline after them is checked here. An error from each, or a failure of git, stops
// the process.
func (c *catFile) batch(command string, names []string, each func(i int, a answer, r io.Reader) error) error {
	if len(names) == 0 {
		return nil
	}
	for _, n := range names {
		if err := checkName(n); err != nil {
			return err
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.start(); err != nil {
		return err
	}
	var req bytes.Buffer
	for _, n := range names {
		req.WriteString(command + " " + n + "\n")
	}
	req.WriteString("flush\n")
	wrote, in := make(chan error, 1), c.in
	if req.Len() <= pipeBuf {
		// Each batch is answered in full before the next is sent, so the pipe is empty now
		// and a request this small never waits for git: written here, without a goroutine.
		_, err := in.Write(req.Bytes())
		wrote <- err
	} else {
		go func() {
			_, err := in.Write(req.Bytes())
			wrote <- err
		}()
	}
	err := c.answers(command, names, each)
	writerDone := false
	if err == nil {
		writerDone = true
		if werr := <-wrote; werr != nil {
			err = fmt.Errorf("git cat-file: %v: %s", werr, strings.TrimSpace(c.stderr.String()))
		}
		if err == nil {
			return nil
		}
	}
	var sticky error
	if c.ctx.Err() != nil {
		err, sticky = context.Cause(c.ctx), context.Cause(c.ctx)
	}
	c.stop(sticky) // also ends a writer blocked on a full pipe
	if !writerDone {
		<-wrote
	}
	c.stderr.Reset()
	return err
}

// answers reads the answers to batch's commands, in order.
func (c *catFile) answers(command string, names []string, each func(i int, a answer, r io.Reader) error) error {
	for i, n := range names {
		line, err := c.out.ReadString('\n')
		if err != nil {
			return fmt.Errorf("git cat-file: reading the answer for %q: %v: %s", n, err, strings.TrimSpace(c.stderr.String()))
		}
		line = strings.TrimSuffix(line, "\n")
		var a answer
		switch line {
		case n + " missing":
			a.missing = true
		case n + " ambiguous":
			a.ambiguous = true
		default:
			f := strings.Fields(line)
			size, perr := int64(0), error(nil)
			if len(f) == 3 {
				size, perr = strconv.ParseInt(f[2], 10, 64)
			}
			if len(f) != 3 || perr != nil || size < 0 {
				return fmt.Errorf("git cat-file: %q: unexpected answer %q", n, line)
			}
			a = answer{oid: f[0], typ: f[1], size: size}
		}
		if err := each(i, a, ctxReader{c.ctx, c.out}); err != nil {
			return err
		}
		if command == "contents" && !a.missing && !a.ambiguous {
			if nl, err := c.out.ReadByte(); err != nil || nl != '\n' {
				return fmt.Errorf("git cat-file: output out of step after %q", n)
			}
		}
	}
	return nil
}

// errBound is the error of an object above the size its reader allows.
var errBound = errors.New("above the limit")

// readContents reads one answer's object of at most limit bytes.
func readContents(a answer, r io.Reader, limit int64, name string) ([]byte, error) {
	if a.size > limit {
		return nil, fmt.Errorf("%s is %d bytes, %w of %d bytes", name, a.size, errBound, limit)
	}
	data := make([]byte, a.size)
	if _, err := io.ReadFull(r, data); err != nil {
		return nil, fmt.Errorf("git cat-file: reading %s: %w", name, err)
	}
	return data, nil
}

// resolve returns the commit rev names, or ok false when it names none (unknown, ambiguous,
// or not a commit).
func (c *catFile) resolve(rev string) (commit string, ok bool, err error) {
	name := rev + "^{commit}"
	if checkName(name) != nil {
		return "", false, nil
	}
	err = c.batch("info", []string{name}, func(_ int, a answer, _ io.Reader) error {
		if !a.missing && !a.ambiguous && a.typ == "commit" {
			commit, ok = a.oid, true
		}
		return nil
	})
	return commit, ok, err
}
