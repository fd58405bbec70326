package chartrender

import (
	"context"
	"encoding/gob"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
)

// ServeWorker makes this process a render worker when WorkerEnv says so: it bounds its own
// memory, reads one request from in, renders it and writes the answer to out. ok is false
// when the process is not a worker; then nothing was read or written and main goes on. main
// (and TestMain of a test binary whose tests render) calls it first and exits with code when
// ok:
//
//	if code, ok := chartrender.ServeWorker(os.Getenv, os.Stdin, os.Stdout); ok {
//		os.Exit(code)
//	}
func ServeWorker(getenv func(string) string, in io.Reader, out io.Writer) (code int, ok bool) {
	v := getenv(WorkerEnv)
	if v == "" {
		return 0, false
	}
	// Started with GOGC at WorkerInitGC for initialisation only: the render runs under Go's
	// default collector, from here on, before the bound is set. The collector's first cycle
	// makes its own structures, and must not run under the bound (there, failing to get
	// memory, Go 1.26's collector crashed the worker unsaid instead of ending it "out of
	// memory"): one runs now, whether or not initialisation ran one, and then the collector
	// is set back. Set back first, a heap past the default's goal started a cycle of its own
	// that could still be running when the bound was set (a worker then died of SIGSEGV or a
	// failed pthread_create instead of "out of memory", TestMemoryBound), and when
	// initialisation had run none a second, forced, cycle followed it. After this one the heap
	// is what is live, under the default's goal, so setting it back starts none.
	runtime.GC()
	debug.SetGCPercent(100)
	limit, err := parseWorkerEnv(v)
	if err != nil {
		_, _ = fmt.Fprintf(out, "%s: %v\n", WorkerEnv, err)
		return 3, true
	}
	// The bound is set before anything of the request is read.
	if err := limitMemory(limit); err != nil {
		_, _ = fmt.Fprintf(out, "bounding the render's memory: %v\n", err)
		return 2, true
	}
	res := serve(in)
	if _, err := io.WriteString(out, WorkerTag+" "+Build()+"\n"); err != nil {
		return 2, true
	}
	if err := gob.NewEncoder(out).Encode(res); err != nil {
		return 2, true
	}
	return 0, true
}

func parseWorkerEnv(v string) (int64, error) {
	tag, n, ok := strings.Cut(v, ":")
	if !ok || tag != WorkerTag {
		return 0, fmt.Errorf("%q is not %s:<bytes>", v, WorkerTag)
	}
	limit, err := strconv.ParseInt(n, 10, 64)
	if err != nil || limit <= 0 {
		return 0, fmt.Errorf("%q: the memory bound is not a positive number of bytes", v)
	}
	return limit, nil
}

// serve decodes the request and renders it in this (bounded) process.
func serve(in io.Reader) *Response {
	req := &Request{}
	d := json.NewDecoder(in)
	d.DisallowUnknownFields() // a request of another build's Spec is refused, not half read
	if err := d.Decode(req); err != nil {
		return &Response{Err: fmt.Sprintf("the render process: its input: %v", err)}
	}
	c, err := FromWire(req.Chart)
	if err != nil {
		return &Response{Err: fmt.Sprintf("the render process: its input: %v", err)}
	}
	out, err := Render(context.Background(), c, req.Values, req.Spec)
	var b *BoundError
	switch {
	case errors.As(err, &b):
		return &Response{Bound: b}
	case err != nil:
		return &Response{Err: err.Error()}
	}
	return &Response{Output: out}
}
