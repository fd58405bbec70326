package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxRequestDepth bounds how deeply one JSON-RPC message read on stdio may nest objects and
// arrays. The tools' arguments nest a level or two; the bound keeps a hostile message from
// reaching a decoder that gives up on it by ending the session.
const maxRequestDepth = 128

// serveStdio serves srv on in and out through a stdioFilter, until the client closes in or
// ctx ends.
func serveStdio(ctx context.Context, srv *mcp.Server, in io.Reader, out io.Writer) error {
	pr, pw := io.Pipe()
	w := &lockedWriter{w: out}
	f := &stdioFilter{in: in, out: pw, answer: w, maxLine: maxRequestLine, maxDepth: maxRequestDepth}
	go f.run()
	// The filter already bounds a line; the SDK's own bound is only a backstop.
	err := srv.Run(ctx, &mcp.IOTransport{Reader: pr, Writer: w, MaxLineLength: 2 * maxRequestLine})
	// Unblocks the filter if it is still passing a line on.
	_ = pr.Close() // a pipe's Close always returns nil
	return err
}

// lockedWriter serialises whole writes: the SDK writes one message per Write, and so does
// stdioFilter when it answers a message itself, so answers never interleave.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (*lockedWriter) Close() error { return nil }

// stdioFilter stands between stdin and the SDK's stdio transport, which ends the session on
// any message it cannot decode. It reads one line (one message) at a time, at most maxLine
// bytes of it, and answers itself, with a JSON-RPC error of id null, a line that is too long
// (the rest of it is read and dropped), nested deeper than maxDepth, not JSON (-32700), or not
// a JSON-RPC message (-32600); the session goes on with the next line. Lines that hold are
// passed on, trimmed, to out.
type stdioFilter struct {
	in       io.Reader
	out      *io.PipeWriter
	answer   io.Writer
	maxLine  int
	maxDepth int
}

// run filters until in ends or fails, then closes out with that end.
func (f *stdioFilter) run() {
	err := f.loop()
	if errors.Is(err, io.EOF) {
		err = nil
	}
	// CloseWithError always returns nil.
	_ = f.out.CloseWithError(err)
}

func (f *stdioFilter) loop() error {
	r := bufio.NewReaderSize(f.in, 64<<10)
	for {
		line, tooLong, err := readLine(r, f.maxLine)
		if len(line) > 0 || tooLong {
			if rerr := f.pass(line, tooLong); rerr != nil {
				return rerr
			}
		}
		if err != nil {
			return err
		}
	}
}

// pass answers a bad line or passes a good one on.
func (f *stdioFilter) pass(line []byte, tooLong bool) error {
	line = bytes.TrimSpace(line)
	var code int
	var msg string
	switch {
	case tooLong:
		code, msg = jsonrpc.CodeInvalidRequest, fmt.Sprintf("request too large: a message on stdio is at most %d bytes (one line)", f.maxLine)
	case len(line) == 0:
		return nil
	case depth(line) > f.maxDepth:
		code, msg = jsonrpc.CodeParseError, fmt.Sprintf("parse error: the message nests objects and arrays more than %d deep", f.maxDepth)
	case !json.Valid(line):
		code, msg = jsonrpc.CodeParseError, "parse error: the message is not valid JSON"
	default:
		if err := checkMessage(line); err != nil {
			code, msg = jsonrpc.CodeInvalidRequest, "invalid request: "+err.Error()
		}
	}
	if msg != "" {
		b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": code, "message": msg}})
		if err != nil {
			return err
		}
		_, err = f.answer.Write(append(b, '\n'))
		return err
	}
	_, err := f.out.Write(append(line, '\n'))
	return err
}

// checkMessage refuses what the SDK's transport would end the session on: a value that is
// not a JSON-RPC message, or an array (a batch) that is empty or holds one.
func checkMessage(line []byte) error {
	if line[0] != '[' {
		_, err := jsonrpc.DecodeMessage(line)
		return err
	}
	var batch []json.RawMessage
	if err := json.Unmarshal(line, &batch); err != nil {
		return err
	}
	if len(batch) == 0 {
		return errors.New("empty batch")
	}
	for _, m := range batch {
		if _, err := jsonrpc.DecodeMessage(m); err != nil {
			return err
		}
	}
	return nil
}

// readLine reads up to the next newline. A line longer than maxLine is read to its end and
// dropped: tooLong is true and line is nil, so memory stays bounded by maxLine.
func readLine(r *bufio.Reader, maxLine int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			n := len(line) + len(chunk)
			if bytes.HasSuffix(chunk, []byte{'\n'}) {
				n-- // the newline is not part of the message
			}
			if n > maxLine {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return line, tooLong, err
	}
}

// depth is how deeply line nests objects and arrays, outside strings.
func depth(line []byte) int {
	d, deepest := 0, 0
	inString, escaped := false, false
	for _, c := range line {
		switch {
		case inString && escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case inString && c == '"':
			inString = false
		case inString:
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			d++
			deepest = max(deepest, d)
		case c == '}' || c == ']':
			d--
		}
	}
	return deepest
}
