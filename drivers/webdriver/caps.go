package webdriver

// WebKitCapabilities ask WebKitWebDriver for a session in the WebKitGTK
// browser binary (MiniBrowser, or a Tauri app's executable), started for
// automation.
func WebKitCapabilities(binary string) Capabilities {
	return Capabilities{
		"webkitgtk:browserOptions": map[string]any{"binary": binary, "args": []string{"--automation"}},
		"unhandledPromptBehavior":  "dismiss",
	}
}

// ChromeCapabilities ask chromedriver for a headless session in binary
// (Debian's chromium) with the fresh profile folder userDataDir.
func ChromeCapabilities(binary, userDataDir string) Capabilities {
	return Capabilities{
		"unhandledPromptBehavior": "dismiss",
		"goog:chromeOptions": map[string]any{
			"binary": binary,
			"args":   []string{"--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--user-data-dir=" + userDataDir},
		},
	}
}

// MiniBrowser is where Debian's libwebkit2gtk-4.1-0 puts WebKitGTK's
// small browser, which the harness drives for the WebKit engine.
const MiniBrowser = "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser"
