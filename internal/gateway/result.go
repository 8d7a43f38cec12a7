package gateway

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// toContent turns an upstream's tool result into ours: its content parts
// (text, images, audio; resources as text saying what they are), which
// the front bounds as it bounds any result. A result without content but
// with structuredContent is that JSON value. isError becomes TOOL_ERROR
// with the result's text.
func toContent(res *mcp.CallToolResult) (any, error) {
	parts := make([]tool.Part, 0, len(res.Content))
	for _, c := range res.Content {
		switch x := c.(type) {
		case *mcp.TextContent:
			parts = append(parts, tool.TextPart(x.Text))
		case *mcp.ImageContent:
			parts = append(parts, tool.ImagePart(x.Data, x.MIMEType))
		case *mcp.AudioContent:
			parts = append(parts, tool.Part{Type: "audio", Data: x.Data, MIMEType: x.MIMEType})
		case *mcp.ResourceLink:
			parts = append(parts, tool.TextPart(fmt.Sprintf("[resource link] %s (%s%s)", x.URI, x.Name, mimeNote(x.MIMEType))))
		case *mcp.EmbeddedResource:
			switch r := x.Resource; {
			case r == nil:
			case r.Text != "" || len(r.Blob) == 0:
				parts = append(parts, tool.TextPart(r.Text))
			default:
				parts = append(parts, tool.TextPart(fmt.Sprintf("[embedded resource] %s: %d bytes%s, not shown", r.URI, len(r.Blob), mimeNote(r.MIMEType))))
			}
		default:
			b, _ := json.Marshal(c)
			parts = append(parts, tool.TextPart(string(b)))
		}
	}
	if res.IsError {
		var texts []string
		for _, p := range parts {
			if p.Type == "text" {
				texts = append(texts, p.Text)
			}
		}
		msg := strings.Join(texts, "\n")
		if msg == "" {
			msg = "the upstream tool reported an error and said nothing more"
		}
		return nil, &tool.Error{Code: tool.CodeToolError, Message: msg}
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			return nil, tool.Errorf(tool.CodeUpstreamError, "the upstream's structuredContent is not JSON: %v", err)
		}
		return json.RawMessage(b), nil
	}
	return &tool.Content{Parts: parts}, nil
}

func mimeNote(m string) string {
	if m == "" {
		return ""
	}
	return ", " + m
}
