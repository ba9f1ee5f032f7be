import { describe, expect, it } from "vitest";
import { rootsFrom } from "./ServerPanel";

describe("roots as typed", () => {
  it("makes an absolute path a file:// URI, keeps a URI, and names each by its folder", () => {
    expect(rootsFrom("/home/ada/my project/\n\nfile:///srv/data\n")).toEqual({
      roots: [
        { uri: "file:///home/ada/my%20project", name: "my project" },
        { uri: "file:///srv/data", name: "data" },
      ],
      wrong: [],
    });
  });

  it("says what is neither, instead of sending file://src (a host named src)", () => {
    expect(rootsFrom("src\n~/code\n/ok").wrong).toEqual(["src", "~/code"]);
  });
});
