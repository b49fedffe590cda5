package browser

// Binary resolves the Chromium binary LaunchChromium would start: name in
// PATH, or the first of chromium, chromium-browser, google-chrome. An
// error wraps ErrNoBrowser. A host that is itself a browser runtime (the
// reference host in DevTools mode) starts the same browser.
func Binary(name string) (string, error) { return findBinary(name) }

// KillProfile kills every process of a browser started with the profile
// directory dir (its helpers too, also once re-parented) and returns how
// many it killed.
func KillProfile(dir string) int { return reap(dir) }

// ProfileEnv is the environment variable that marks a browser's processes
// with its profile directory (NAME=DIR), so that KillProfile finds the
// helpers that do not name it on their command line.
const ProfileEnv = profileEnv

// ReadResultScript is the expression AwaitResult evaluates to read the
// result blob: {state: "absent" | "pending" | "too large" | "done", text,
// size}. Another backend reads the blob with it.
func ReadResultScript() string { return readResultJS() }
