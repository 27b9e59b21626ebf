// A test adapter exercising every path of serve(); it prints to stdout on purpose.
import { serve, Rejected, Unsupported } from "../index.js";

serve(
  {
    validate(input) {
      console.log("console.log inside a handler");
      console.info("console.info");
      console.warn("console.warn");
      console.debug("console.debug");
      process.stdout.write("a direct process.stdout.write\n");
      const text = Buffer.from(input).toString("latin1");
      if (text.startsWith("\xef\xbb\xbf")) return new Rejected("unexpected_bom", { line: 1 });
      return { event_count: text.split("\n").filter((l) => l !== "").length, bytes: input.length };
    },
    replay: async (input, { op, profile }) => ({ until: op.until ?? null, profile }),
    fingerprint() {
      throw new Unsupported();
    },
    branch(input, { op }) {
      throw new Rejected("sequence_out_of_range", { sequence: op.at });
    },
    canonical() {
      throw new Error("boom");
    },
  },
  { implementation: { name: "fixture", version: "1.2.3" }, profiles: ["core"] },
);
