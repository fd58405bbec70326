package mcpserver_test

import (
	"bufio"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"
)

// rpcAnswer is the part of a JSON-RPC answer the stdio tests read.
type rpcAnswer struct {
	ID     any `json:"id"`
	Result *struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	} `json:"result"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// stdioSession runs the command on stdio over real pipes, initializes it, and returns a
// function that writes one message and one that reads the next answer.
func stdioSession(t *testing.T) (send func(string), next func() rpcAnswer) {
	t.Helper()
	serverIn, clientOut := io.Pipe()
	clientIn, serverOut := io.Pipe()
	log, stop := serve(t, serverIn, serverOut, "--kubeconfig", emptyKubeconfig(t), "--repo-root", t.TempDir())
	t.Cleanup(func() {
		clientOut.Close()
		if code := stop(false); code != 0 {
			t.Errorf("after the client closed stdin: exit %d, want 0\n%s", code, log.String())
		}
	})
	answers := make(chan string)
	go func() {
		sc := bufio.NewScanner(clientIn)
		sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
		for sc.Scan() {
			answers <- sc.Text()
		}
		close(answers)
	}()
	send = func(msg string) {
		done := make(chan error, 1)
		go func() { _, err := io.WriteString(clientOut, msg+"\n"); done <- err }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("writing to the server: %v\n%s", err, log.String())
			}
		case <-time.After(60 * time.Second):
			t.Fatalf("the server read no more input\n%s", log.String())
		}
	}
	next = func() rpcAnswer {
		select {
		case line, ok := <-answers:
			if !ok {
				t.Fatalf("the server closed stdout\n%s", log.String())
			}
			var a rpcAnswer
			if err := json.Unmarshal([]byte(line), &a); err != nil {
				t.Fatalf("answer %q: %v", line, err)
			}
			return a
		case <-time.After(60 * time.Second):
			t.Fatalf("no answer within 60s\n%s", log.String())
		}
		return rpcAnswer{}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	if a := next(); a.Error != nil || a.ID != float64(1) {
		t.Fatalf("initialize: %+v", a)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return send, next
}

// A message on stdio that cannot be decoded gets a JSON-RPC error of id null and the session
// goes on: the next tools/list is answered, on the same pipes.
func TestStdioSurvivesBadMessages(t *testing.T) {
	for _, tc := range []struct {
		name, msg string
		code      int
		want      string
	}{
		{"300000 nested arrays", strings.Repeat("[", 300000) + strings.Repeat("]", 300000), -32700, "nests"},
		{"nested objects in the params", `{"jsonrpc":"2.0","id":7,"method":"tools/list","params":` + strings.Repeat(`{"a":`, 200) + "1" + strings.Repeat("}", 200) + "}", -32700, "nests"},
		{"an 8 MiB line", `{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{"x":"` + strings.Repeat("a", 8<<20) + `"}}`, -32600, "request too large"},
		{"not JSON", `{"jsonrpc":"2.0","id":`, -32700, "not valid JSON"},
		{"two values on a line", `{} {}`, -32700, "not valid JSON"},
		{"not a JSON-RPC message", `{"hello":"world"}`, -32600, "invalid request"},
		{"a number", `42`, -32600, "invalid request"},
		{"an empty batch", `[]`, -32600, "invalid request"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			send, next := stdioSession(t)
			send(tc.msg)
			a := next()
			if a.ID != nil || a.Error == nil || a.Error.Code != tc.code || !strings.Contains(a.Error.Message, tc.want) {
				t.Fatalf("answer to the bad message: id %v error %+v, want id null, code %d, %q", a.ID, a.Error, tc.code, tc.want)
			}
			// Brackets in strings do not count, and whitespace around a message is no error.
			send(`  {"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"note":"[[[{{{"}}}  `)
			a = next()
			if a.ID != float64(2) || a.Error != nil || a.Result == nil || len(a.Result.Tools) != 4 {
				t.Fatalf("tools/list after the bad message: id %v error %+v result %+v", a.ID, a.Error, a.Result)
			}
		})
	}
}
