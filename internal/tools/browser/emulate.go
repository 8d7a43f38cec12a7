package browser

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/barrhawk/barrhawk/internal/browser"
	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
)

// mediaArgs are browser_emulate_media's arguments and the media features
// they stand for.
var mediaArgs = []struct{ arg, feature string }{
	{"colorScheme", "prefers-color-scheme"},
	{"reducedMotion", "prefers-reduced-motion"},
	{"forcedColors", "forced-colors"},
	{"contrast", "prefers-contrast"},
	{"media", "media"},
}

// nullableEnum is a string argument taking one of values, or null.
func nullableEnum(name, desc string, values []string) schema.Prop {
	enum := make([]any, 0, len(values)+1)
	for _, v := range values {
		enum = append(enum, v)
	}
	return schema.String(name, desc+" ("+strings.Join(values, ", ")+"; null stops emulating it; omitted: unchanged)").Types("string", "null").Enum(append(enum, nil)...)
}

func emulateMedia() tool.Tool {
	features := browser.MediaFeatures()
	desc := map[string]string{
		"colorScheme":   "The prefers-color-scheme media feature",
		"reducedMotion": "The prefers-reduced-motion media feature",
		"forcedColors":  "The forced-colors media feature",
		"contrast":      "The prefers-contrast media feature",
		"media":         "The CSS media type",
	}
	var props []schema.Prop
	for _, m := range mediaArgs {
		props = append(props, nullableEnum(m.arg, desc[m.arg], features[m.feature]))
	}
	return tool.Tool{
		Def: def("browser_emulate_media", "Emulate CSS media for the active session, in every tab of it, open or opened later: the colour scheme (dark mode), reduced motion, forced colours, contrast, "+
			"and the media type (print). Omitted ones stay as they are; null stops emulating one. Returns {emulated: {colorScheme, reducedMotion, forcedColors, contrast, media}}.", true,
			schema.Object(props...)).
			WithPhrases("dark mode", "prefers-color-scheme", "print stylesheet", "emulate print media", "reduced motion", "high contrast mode", "page.emulateMedia", "light theme"),
		Run: tool.Typed(func(ctx context.Context, in map[string]json.RawMessage, call *tool.Call) (any, error) {
			change := map[string]*string{}
			for _, m := range mediaArgs {
				raw, ok := in[m.arg]
				if !ok {
					continue
				}
				if string(raw) == "null" {
					change[m.feature] = nil
					continue
				}
				var v string
				if err := json.Unmarshal(raw, &v); err != nil || !slices.Contains(features[m.feature], v) {
					return nil, tool.Errorf(tool.CodeInvalidArgs, "argument %q: %s; use %s, or null to stop emulating it", m.arg, raw, strings.Join(features[m.feature], ", "))
				}
				change[m.feature] = &v
			}
			if len(change) == 0 {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "browser_emulate_media needs at least one of colorScheme, reducedMotion, forcedColors, contrast, media (a value, or null to clear it)")
			}
			b, err := browser.Get(ctx, call.Resources)
			if err != nil {
				return nil, err
			}
			now, err := b.EmulateMedia(ctx, change)
			if err != nil {
				return nil, err
			}
			out := map[string]any{}
			for _, m := range mediaArgs {
				if v, ok := now[m.feature]; ok {
					out[m.arg] = v
				} else {
					out[m.arg] = nil
				}
			}
			return map[string]any{"emulated": out}, nil
		}),
	}
}
