import { isOffrunError } from "../../../../src/core/foundation/errors.js";
import { slugFromPrompt, validateAgentName } from "../../../../src/core/foundation/names.js";

describe("slugFromPrompt", () => {
  test("it keeps up to four meaningful words and drops stop words", () => {
    expect(slugFromPrompt("Please fix the login bug on the settings page", new Set())).toBe("fix-login-bug-settings");
  });

  test("it lowercases and strips punctuation and accents", () => {
    expect(slugFromPrompt("Add CAFÉ menu: don't break `API`!", new Set())).toBe("add-cafe-menu-dont");
  });

  test("it stays within 32 characters", () => {
    const slug = slugFromPrompt("internationalization localization accessibility documentation", new Set());
    expect(slug.length).toBeLessThanOrEqual(32);
    expect(slug).toBe("internationalization");
    expect(slugFromPrompt("a".repeat(50), new Set())).toBe("a".repeat(32));
  });

  test("it falls back to 'agent' when nothing meaningful is left", () => {
    expect(slugFromPrompt("please do the", new Set())).toBe("agent");
    expect(slugFromPrompt("!!! ??? 日本語", new Set())).toBe("agent");
  });

  test("it appends -2, -3 ... to stay unique", () => {
    expect(slugFromPrompt("fix login", new Set(["fix-login"]))).toBe("fix-login-2");
    expect(slugFromPrompt("fix login", new Set(["fix-login", "fix-login-2"]))).toBe("fix-login-3");
    expect(slugFromPrompt("", new Set(["agent"]))).toBe("agent-2");
  });

  test("a unique suffix never pushes a long slug past 32 characters", () => {
    const first = slugFromPrompt("refactor authentication middleware thoroughly", new Set());
    const second = slugFromPrompt("refactor authentication middleware thoroughly", new Set([first]));
    expect(second.length).toBeLessThanOrEqual(32);
    expect(second.endsWith("-2")).toBe(true);
  });

  test("every slug it produces is a valid agent name", () => {
    for (const prompt of ["Fix it", "-rf /", "../../etc/passwd", "x.lock", "Ünïcödé wörds here"]) {
      expect(() => validateAgentName(slugFromPrompt(prompt, new Set()))).not.toThrow();
    }
  });
});

describe("validateAgentName", () => {
  test.each(["fix-login", "a", "v1.2-upgrade", "under_score", "x".repeat(48)])("it accepts %p", (name) => {
    expect(() => validateAgentName(name)).not.toThrow();
  });

  test.each([
    ["", "empty"],
    ["../../etc", "slash"],
    ["-rf", "'-'"],
    ["Fix", "uppercase"],
    ["fix login", "spaces"],
    ["fix/login", "slash"],
    [".hidden", "starts with '.'"],
    ["x".repeat(49), "longer than 48"],
    ["a..b", "'..'"],
    ["name.lock", ".lock"],
    ["trailing.", "ends with '.'"],
    ["at@{", "'@'"],
    ["tilde~1", "'~'"],
    ["colon:x", "':'"],
  ])("it refuses %p with a message saying why", (name, why) => {
    let caught: unknown;
    try {
      validateAgentName(name);
    } catch (error) {
      caught = error;
    }
    expect(isOffrunError(caught, "invalid_input")).toBe(true);
    expect((caught as Error).message).toContain(why);
  });
});
