package output

import (
	"io"
	"strings"
)

// Node is one line of a text tree and the lines under it. It is the shape of a text result
// only; structured outputs marshal the plugin's Result, not the tree. Text is one line: a
// newline in it is escaped like any control character, since names and messages in it may come
// from others; continuation lines the printer means go in More.
type Node struct {
	Text     string
	More     []string
	Children []*Node
}

// Add appends a child with the given text and returns it.
func (n *Node) Add(text string) *Node {
	c := &Node{Text: text}
	n.Children = append(n.Children, c)
	return c
}

// AddLines appends a child of several lines: first beside the connector, more aligned under it.
func (n *Node) AddLines(first string, more ...string) *Node {
	c := n.Add(first)
	c.More = more
	return c
}

// Render draws the tree: the root's children at the left margin, descendants under box-drawing
// connectors, continuation lines (More) aligned under the connector. Every line is escaped
// (Sanitize, keeping p's colours) and the document guarded (Clean), so no text in the tree can
// forge a line, move the cursor or issue a GitHub workflow command.
func (n *Node) Render(w io.Writer, p Palette) error {
	var b strings.Builder
	if n.Text != "" || len(n.More) > 0 {
		n.writeLines(&b, "", "", p)
	}
	for _, c := range n.Children {
		c.render(&b, nil, p)
	}
	return WriteClean(w, b.String(), p)
}

// render draws this node after the connectors of its ancestors; lastFlags[i] tells whether the
// ancestor at depth i was the last of its siblings (then no vertical bar continues below it).
func (n *Node) render(b *strings.Builder, lastFlags []bool, p Palette) {
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
	n.writeLines(b, first, cont, p)
	for i, c := range n.Children {
		c.render(b, append(append([]bool(nil), lastFlags...), i == len(n.Children)-1), p)
	}
}

func (n *Node) writeLines(b *strings.Builder, first, cont string, p Palette) {
	b.WriteString(first)
	b.WriteString(escape(n.Text, false, p.On))
	b.WriteByte('\n')
	for _, line := range n.More {
		b.WriteString(cont)
		b.WriteString(escape(line, false, p.On))
		b.WriteByte('\n')
	}
}
