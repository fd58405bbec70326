package output

import (
	"io"
	"strings"
)

// Node is one line of a text tree and the lines under it. It is the shape of a text result
// only; structured outputs marshal the plugin's Result, not the tree.
type Node struct {
	Text     string
	Children []*Node
}

// Add appends a child with the given text and returns it.
func (n *Node) Add(text string) *Node {
	c := &Node{Text: text}
	n.Children = append(n.Children, c)
	return c
}

// Render draws the tree: the root's children at the left margin, descendants under box-drawing
// connectors. Multi-line texts keep their continuation lines aligned under the connector.
func (n *Node) Render(w io.Writer) error {
	var b strings.Builder
	if n.Text != "" {
		writeLines(&b, "", "", n.Text)
	}
	for _, c := range n.Children {
		c.render(&b, nil)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// render draws this node after the connectors of its ancestors; lastFlags[i] tells whether the
// ancestor at depth i was the last of its siblings (then no vertical bar continues below it).
func (n *Node) render(b *strings.Builder, lastFlags []bool) {
	var prefix strings.Builder
	for i, last := range lastFlags {
		if i == len(lastFlags)-1 {
			break
		}
		if last {
			prefix.WriteString("    ")
		} else {
			prefix.WriteString("│   ")
		}
	}
	first, cont := prefix.String(), prefix.String()
	if len(lastFlags) > 0 {
		if lastFlags[len(lastFlags)-1] {
			first, cont = first+"└── ", cont+"    "
		} else {
			first, cont = first+"├── ", cont+"│   "
		}
	}
	writeLines(b, first, cont, n.Text)
	for i, c := range n.Children {
		c.render(b, append(append([]bool(nil), lastFlags...), i == len(n.Children)-1))
	}
}

func writeLines(b *strings.Builder, first, cont, text string) {
	for i, line := range strings.Split(text, "\n") {
		if i == 0 {
			b.WriteString(first)
		} else {
			b.WriteString(cont)
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
}
