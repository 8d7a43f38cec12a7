package browser

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/barrhawk/barrhawk/internal/closest"
	"github.com/barrhawk/barrhawk/internal/tool"
)

// deviceJSON is Playwright's device list, vendored unchanged (see
// devices/NOTICE).
//
//go:embed devices/deviceDescriptorsSource.json
var deviceJSON []byte

// Device is one of Playwright's device descriptors.
type Device struct {
	UserAgent         string  `json:"userAgent"`
	Viewport          Size    `json:"viewport"`
	Screen            *Size   `json:"screen,omitempty"`
	DeviceScaleFactor float64 `json:"deviceScaleFactor"`
	IsMobile          bool    `json:"isMobile"`
	HasTouch          bool    `json:"hasTouch"`
}

// Size is a width and a height in CSS pixels.
type Size struct {
	Width  int64 `json:"width"`
	Height int64 `json:"height"`
}

// Geolocation is a position the session reports to
// navigator.geolocation.
type Geolocation struct {
	Latitude  float64 `json:"latitude"`
	Longitude float64 `json:"longitude"`
	Accuracy  float64 `json:"accuracy"`
}

var devices = sync.OnceValues(func() (map[string]Device, error) {
	var m map[string]Device
	if err := json.Unmarshal(deviceJSON, &m); err != nil {
		return nil, fmt.Errorf("read the vendored device list: %w", err)
	}
	return m, nil
})

// DeviceNames lists the names of Playwright's devices, sorted.
func DeviceNames() []string {
	m, _ := devices()
	return slices.Sorted(maps.Keys(m))
}

// LookupDevice returns Playwright's descriptor of the device name
// ("iPhone 13", "Pixel 7", "Desktop Chrome", ...); an unknown name is an
// INVALID_ARGS error naming the closest ones.
func LookupDevice(name string) (Device, error) {
	m, err := devices()
	if err != nil {
		return Device{}, tool.Errorf(tool.CodeInternal, "%v", err)
	}
	if d, ok := m[name]; ok {
		return d, nil
	}
	names := DeviceNames()
	lower := make([]string, len(names))
	back := map[string]string{}
	for i, n := range names {
		lower[i] = strings.ToLower(n)
		back[lower[i]] = n
	}
	var near []string
	for _, n := range closest.Names(strings.ToLower(strings.TrimSpace(name)), lower, 5) {
		near = append(near, fmt.Sprintf("%q", back[n]))
	}
	hint := "; the names are Playwright's (devices in @playwright/test), such as \"iPhone 13\", \"Pixel 7\", \"iPad Pro 11\" or \"Desktop Chrome\""
	if len(near) > 0 {
		hint = "; the closest: " + strings.Join(near, ", ")
	}
	return Device{}, tool.Errorf(tool.CodeInvalidArgs, "argument \"device\": no device %q in Playwright's device list (%d names)%s", name, len(names), hint)
}

// SessionOptions are a session's emulation, set when it opens
// (browser_session_new); each applies to every tab of the session, tabs
// opened later included. Zero values leave the browser's defaults.
type SessionOptions struct {
	// Device is a name in Playwright's device list: its viewport, screen,
	// scale, user agent, mobile and touch flags. Viewport and UserAgent
	// override the device's.
	Device      string
	Viewport    *Size
	UserAgent   string
	Locale      string
	TimezoneID  string
	Geolocation *Geolocation
	// Permissions are Playwright's permission names (geolocation,
	// notifications, camera, microphone, clipboard-read, ...), granted
	// to every origin.
	Permissions []string
	ColorScheme string
	Offline     bool

	device *Device
}

// permissionTypes maps Playwright's permission names to the protocol's
// (crBrowser.ts, doGrantPermissions).
var permissionTypes = map[string][]string{
	"geolocation":          {"geolocation"},
	"midi":                 {"midi"},
	"notifications":        {"notifications"},
	"camera":               {"videoCapture"},
	"microphone":           {"audioCapture"},
	"background-sync":      {"backgroundSync"},
	"ambient-light-sensor": {"sensors"},
	"accelerometer":        {"sensors"},
	"gyroscope":            {"sensors"},
	"magnetometer":         {"sensors"},
	"clipboard-read":       {"clipboardReadWrite"},
	"clipboard-write":      {"clipboardSanitizedWrite"},
	"payment-handler":      {"paymentHandler"},
	"midi-sysex":           {"midiSysex"},
	"storage-access":       {"storageAccess"},
	"local-fonts":          {"localFonts"},
	"local-network-access": {"localNetworkAccess", "localNetwork", "loopbackNetwork"},
	"screen-wake-lock":     {"wakeLockScreen"},
}

// mediaValues are the values each emulated media feature takes.
var mediaValues = map[string][]string{
	"media":                  {"screen", "print"},
	"prefers-color-scheme":   {"light", "dark", "no-preference"},
	"prefers-reduced-motion": {"reduce", "no-preference"},
	"forced-colors":          {"active", "none"},
	"prefers-contrast":       {"more", "no-preference"},
}

// check validates the options and resolves the device.
func (o *SessionOptions) check() error {
	if o.Device != "" {
		d, err := LookupDevice(o.Device)
		if err != nil {
			return err
		}
		o.device = &d
	}
	if v := o.Viewport; v != nil && (v.Width < 1 || v.Height < 1 || v.Width > 10_000 || v.Height > 10_000) {
		return tool.Errorf(tool.CodeInvalidArgs, "argument \"viewport\": %d×%d; give a width and a height from 1 to 10000 CSS pixels, such as {width: 390, height: 844}", v.Width, v.Height)
	}
	if g := o.Geolocation; g != nil {
		if g.Latitude < -90 || g.Latitude > 90 || g.Longitude < -180 || g.Longitude > 180 || g.Accuracy < 0 {
			return tool.Errorf(tool.CodeInvalidArgs, "argument \"geolocation\": latitude %v, longitude %v, accuracy %v; latitude is from -90 to 90, longitude from -180 to 180, accuracy (metres) 0 or more", g.Latitude, g.Longitude, g.Accuracy)
		}
	}
	for _, p := range o.Permissions {
		if _, ok := permissionTypes[p]; !ok {
			known := slices.Sorted(maps.Keys(permissionTypes))
			near := closest.Names(p, known, 3)
			hint := ""
			if len(near) > 0 {
				hint = fmt.Sprintf(" (did you mean %s?)", strings.Join(near, ", "))
			}
			return tool.Errorf(tool.CodeInvalidArgs, "argument \"permissions\": unknown permission %q%s; Playwright's names: %s", p, hint, strings.Join(known, ", "))
		}
	}
	if o.ColorScheme != "" && !slices.Contains(mediaValues["prefers-color-scheme"], o.ColorScheme) {
		return tool.Errorf(tool.CodeInvalidArgs, "argument \"colorScheme\": %q; use light, dark or no-preference", o.ColorScheme)
	}
	return nil
}

// sessionEmu is a session's emulation, applied to each of its tabs.
type sessionEmu struct {
	mu sync.Mutex
	// metrics, when set, are the tabs' viewport, scale and mobile flag;
	// touch says whether touch events are emulated.
	metrics *emulation.SetDeviceMetricsOverrideParams
	touch   bool
	// userAgent and locale override the browser's (locale also sets
	// Accept-Language and navigator.language).
	userAgent, locale, timezone string
	geo                         *Geolocation
	// media holds the emulated media type ("media") and features
	// (prefers-color-scheme, ...).
	media map[string]string
}

// newSession makes a session's state from its options (already checked).
func newSession(name string, first context.Context, o SessionOptions) *Session {
	e := &sessionEmu{userAgent: o.UserAgent, locale: o.Locale, timezone: o.TimezoneID, geo: o.Geolocation, media: map[string]string{}}
	if d := o.device; d != nil {
		e.metrics = &emulation.SetDeviceMetricsOverrideParams{Width: d.Viewport.Width, Height: d.Viewport.Height, DeviceScaleFactor: d.DeviceScaleFactor, Mobile: d.IsMobile}
		if d.Screen != nil {
			e.metrics.ScreenWidth, e.metrics.ScreenHeight = d.Screen.Width, d.Screen.Height
		}
		e.touch = d.HasTouch
		if e.userAgent == "" {
			e.userAgent = d.UserAgent
		}
	}
	if v := o.Viewport; v != nil {
		if e.metrics == nil {
			e.metrics = &emulation.SetDeviceMetricsOverrideParams{DeviceScaleFactor: 1}
		}
		e.metrics.Width, e.metrics.Height = v.Width, v.Height
	}
	if m := e.metrics; m != nil {
		m.ScreenOrientation = &emulation.ScreenOrientation{Type: emulation.ScreenOrientationTypePortraitPrimary}
		if m.Width > m.Height {
			m.ScreenOrientation = &emulation.ScreenOrientation{Type: emulation.ScreenOrientationTypeLandscapePrimary, Angle: 90}
		}
	}
	if o.ColorScheme != "" {
		e.media["prefers-color-scheme"] = o.ColorScheme
	}
	return &Session{Name: name, first: first, net: &sessionNet{offline: o.Offline}, emu: e}
}

// startSession readies a new session and its first tab: the permissions
// granted to its browser context, then what every tab gets (prepare).
func (b *Browser) startSession(ctx context.Context, s *Session, p *Page, o SessionOptions) error {
	if len(o.Permissions) > 0 {
		var perms []string
		for _, n := range o.Permissions {
			perms = append(perms, permissionTypes[n]...)
		}
		var bctx cdp.BrowserContextID
		if c := chromedp.FromContext(s.first); c != nil {
			bctx = c.BrowserContextID
		}
		err := p.cdpCall(ctx, func(ctx context.Context) error {
			_, err := chromedp.CallBrowser(ctx, grantPermissions, grantPermissionsParams{Permissions: perms, BrowserContextID: bctx})
			return err
		})
		if err != nil {
			return describe("grant the permissions "+strings.Join(o.Permissions, ", "), err)
		}
	}
	if s.emu.locale != "" && s.emu.userAgent == "" {
		// Accept-Language comes with a user agent: the browser's own.
		err := p.cdpCall(ctx, func(ctx context.Context) error {
			v, err := chromedp.CallBrowser(ctx, browser.GetVersion, cdp.Empty{})
			s.emu.userAgent = v.UserAgent
			return err
		})
		if err != nil {
			return describe("read the browser's user agent", err)
		}
	}
	return b.prepare(ctx, s, p)
}

// grantPermissions is Browser.grantPermissions, which cdproto no longer
// lists (deprecated for setPermission); Chromium answers it, and
// Playwright's grantPermissions sends it.
var grantPermissions = cdp.Command[grantPermissionsParams, cdp.Empty]{Method: "Browser.grantPermissions"}

type grantPermissionsParams struct {
	Permissions      []string             `json:"permissions"`
	BrowserContextID cdp.BrowserContextID `json:"browserContextId,omitempty"`
}

// setupCmd is one protocol command of a tab's set-up, and what its
// failure means.
type setupCmd struct {
	method string
	params any
	fail   func(error) error
}

// setup is the commands that give a tab of session s what every tab of it
// has, in order: the viewport and device, user agent, locale, time zone,
// geolocation, media, offline state, and last the routes (Fetch.enable or
// Fetch.disable, which the browser answers even for a page that has no
// renderer yet: popup.go waits on it).
func (b *Browser) setup(s *Session) []setupCmd {
	e := s.emu
	e.mu.Lock()
	metrics, touch, ua, locale, tz, geo := e.metrics, e.touch, e.userAgent, e.locale, e.timezone, e.geo
	e.mu.Unlock()
	settings := func(what string) func(error) error {
		return func(err error) error {
			return describe("emulate the session's settings", fmt.Errorf("%s: %w", what, err))
		}
	}
	var cmds []setupCmd
	if metrics == nil {
		w, h := b.opts.Width, b.opts.Height
		viewport := func(err error) error {
			return tool.Errorf(tool.CodeToolError, "set the viewport to %d×%d: %v", w, h, err)
		}
		cmds = append(cmds,
			setupCmd{emulation.SetDeviceMetricsOverride.Method, emulation.SetDeviceMetricsOverrideParams{Width: int64(w), Height: int64(h), DeviceScaleFactor: 1, ScreenOrientation: &emulation.ScreenOrientation{Type: emulation.ScreenOrientationTypePortraitPrimary}}, viewport},
			setupCmd{emulation.SetTouchEmulationEnabled.Method, emulation.SetTouchEmulationEnabledParams{}, viewport})
	} else {
		device := func(err error) error {
			return describe(fmt.Sprintf("emulate a %d×%d viewport", metrics.Width, metrics.Height), err)
		}
		cmds = append(cmds,
			setupCmd{emulation.SetDeviceMetricsOverride.Method, *metrics, device},
			setupCmd{emulation.SetTouchEmulationEnabled.Method, emulation.SetTouchEmulationEnabledParams{Enabled: touch, MaxTouchPoints: touchPoints(touch)}, device})
	}
	if ua != "" {
		params := emulation.SetUserAgentOverrideParams{UserAgent: ua}
		if locale != "" {
			params.AcceptLanguage = locale
		}
		cmds = append(cmds, setupCmd{emulation.SetUserAgentOverride.Method, params, settings("user agent")})
	}
	if locale != "" {
		cmds = append(cmds, setupCmd{emulation.SetLocaleOverride.Method, emulation.SetLocaleOverrideParams{Locale: locale}, func(err error) error {
			return tool.Errorf(tool.CodeInvalidArgs, "argument \"locale\": %q: %v; give a BCP 47 tag such as en-US, de-DE or ja-JP", locale, err)
		}})
	}
	if tz != "" {
		cmds = append(cmds, setupCmd{emulation.SetTimezoneOverride.Method, emulation.SetTimezoneOverrideParams{TimezoneID: tz}, func(err error) error {
			return tool.Errorf(tool.CodeInvalidArgs, "argument \"timezoneId\": %q: %v; give an IANA time zone such as Europe/Berlin, America/New_York or Asia/Tokyo", tz, err)
		}})
	}
	if geo != nil {
		lat, lon, acc := geo.Latitude, geo.Longitude, geo.Accuracy
		cmds = append(cmds, setupCmd{emulation.SetGeolocationOverride.Method, emulation.SetGeolocationOverrideParams{Latitude: &lat, Longitude: &lon, Accuracy: &acc}, settings("geolocation")})
	}
	cmds = append(cmds, setupCmd{emulation.SetEmulatedMedia.Method, s.mediaParams(), func(err error) error { return describe("emulate the media", err) }})
	if s.net.isOffline() {
		cmds = append(cmds, setupCmd{emulateNetworkConditions.Method, s.net.conditions(), func(err error) error { return describe("take the tab offline", err) }})
	}
	return append(cmds, s.fetchCmds()...)
}

// prepare gives a new tab of session s what every tab of it has (setup),
// each command answered before the next is sent.
func (b *Browser) prepare(ctx context.Context, s *Session, p *Page) error {
	p.mu.Lock()
	p.session = s
	p.mu.Unlock()
	for _, c := range b.setup(s) {
		if err := p.send(ctx, c); err != nil {
			return err
		}
	}
	return nil
}

// send runs a set-up command on the tab, waiting for its answer.
func (p *Page) send(ctx context.Context, c setupCmd) error {
	err := p.cdpCall(ctx, func(ctx context.Context) error {
		return chromedp.FromContext(ctx).Target.Call(ctx, c.method, c.params, nil)
	})
	if err != nil {
		return c.fail(err)
	}
	return nil
}

func touchPoints(touch bool) int64 {
	if touch {
		return 1
	}
	return 0
}

// mediaParams are the session's emulated media type and features.
func (s *Session) mediaParams() emulation.SetEmulatedMediaParams {
	s.emu.mu.Lock()
	defer s.emu.mu.Unlock()
	params := emulation.SetEmulatedMediaParams{Media: s.emu.media["media"]}
	for _, name := range slices.Sorted(maps.Keys(mediaValues)) {
		if name != "media" {
			// Every feature, its value "" when not emulated: each call
			// replaces the tab's features.
			params.Features = append(params.Features, &emulation.MediaFeature{Name: name, Value: s.emu.media[name]})
		}
	}
	return params
}

// applyMedia sets the tab's emulated media type and features to the
// session's.
func (s *Session) applyMedia(ctx context.Context, p *Page) error {
	params := s.mediaParams()
	err := p.cdpCall(ctx, func(ctx context.Context) error {
		_, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, params)
		return err
	})
	return describe("emulate the media", err)
}

// MediaFeatures lists the media features EmulateMedia takes, with their
// values ("media" is the media type).
func MediaFeatures() map[string][]string { return maps.Clone(mediaValues) }

// EmulateMedia changes the active session's emulated media: for each
// feature in change ("media", "prefers-color-scheme",
// "prefers-reduced-motion", "forced-colors", "prefers-contrast") its value,
// or nil to stop emulating it; features not in change stay as they are.
// Every tab of the session, and tabs opened later, get it. It returns the
// emulation in force.
func (b *Browser) EmulateMedia(ctx context.Context, change map[string]*string) (map[string]string, error) {
	for name, v := range change {
		vals, ok := mediaValues[name]
		if !ok {
			return nil, tool.Errorf(tool.CodeInvalidArgs, "unknown media feature %q", name)
		}
		if v != nil && !slices.Contains(vals, *v) {
			return nil, tool.Errorf(tool.CodeInvalidArgs, "%s %q: use %s, or null to stop emulating it", name, *v, strings.Join(vals, ", "))
		}
	}
	s, pages, err := b.activeSession()
	if err != nil {
		return nil, err
	}
	s.emu.mu.Lock()
	for name, v := range change {
		if v == nil {
			delete(s.emu.media, name)
		} else {
			s.emu.media[name] = *v
		}
	}
	now := maps.Clone(s.emu.media)
	s.emu.mu.Unlock()
	return now, applyAll(ctx, pages, s.applyMedia)
}

// resize sets the tab's viewport, keeping the session's device (its
// scale, mobile and touch flags) when it has one.
func (p *Page) resize(ctx context.Context, w, h int) error {
	var m *emulation.SetDeviceMetricsOverrideParams
	touch := false
	p.mu.Lock()
	s := p.session
	p.mu.Unlock()
	if s != nil {
		s.emu.mu.Lock()
		if s.emu.metrics != nil {
			c := *s.emu.metrics
			m = &c
		}
		touch = s.emu.touch
		s.emu.mu.Unlock()
	}
	if m == nil {
		return p.setViewport(ctx, w, h)
	}
	m.Width, m.Height = int64(w), int64(h)
	err := p.cdpCall(ctx, func(ctx context.Context) error {
		if _, err := chromedp.Call(ctx, emulation.SetDeviceMetricsOverride, *m); err != nil {
			return err
		}
		_, err := chromedp.Call(ctx, emulation.SetTouchEmulationEnabled, emulation.SetTouchEmulationEnabledParams{Enabled: touch, MaxTouchPoints: touchPoints(touch)})
		return err
	})
	if err != nil {
		return tool.Errorf(tool.CodeToolError, "set the viewport to %d×%d: %v", w, h, err)
	}
	return nil
}
