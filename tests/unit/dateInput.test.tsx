/**
 * Date fields are typed as the member reads dates (their display format), not in the browser's
 * native date box (mm/dd/yyyy in an English browser whatever the rest of the screen shows).
 */
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { parseDateTime, createFormatter } from "@core/format";
import { DateInput, DateTimeInput } from "~/ui/DateInput";
import { useDisplayStore } from "~/ui/format";

afterEach(() => {
  cleanup();
  useDisplayStore.getState().setPreference({});
});

describe("DateInput", () => {
  it("shows and reads days in the member's format", () => {
    useDisplayStore.getState().setPreference({ locale: "de-DE", timeZone: "Europe/Athens" });
    const onChange = vi.fn();
    render(<DateInput aria-label="From day" value="2026-11-27" onChange={onChange} />);
    const input = screen.getByRole("textbox", { name: "From day" });
    expect(input).toHaveProperty("value", "27.11.2026");
    expect(input.getAttribute("placeholder")).toBe("dd.mm.yyyy");
    expect(input.getAttribute("type")).not.toBe("date");
    fireEvent.change(input, { target: { value: "01.12.2026" } });
    expect(onChange).toHaveBeenLastCalledWith({ target: { value: "2026-12-01" } });
    fireEvent.change(input, { target: { value: "31.02.2026" } });
    expect(input.getAttribute("aria-invalid")).toBe("true");
  });
});

describe("DateTimeInput", () => {
  it("reads a time in the member's zone and hands the form ISO UTC", () => {
    useDisplayStore.getState().setPreference({ locale: "en-GB", timeZone: "Europe/Athens" });
    const { container } = render(<DateTimeInput aria-label="From" name="from" defaultValue="2026-07-01T09:00:00.000Z" />);
    const input = screen.getByRole("textbox", { name: "From" });
    expect(input).toHaveProperty("value", "01/07/2026 12:00");
    fireEvent.change(input, { target: { value: "27/11/2026 14:03" } });
    expect(container.querySelector<HTMLInputElement>('input[name="from"]')!.value).toBe("2026-11-27T12:03:00.000Z");
  });

  it("parses across zones and seasons", () => {
    const us = createFormatter({ locale: "en-US", timeZone: "UTC" }).datePattern;
    expect(parseDateTime("11/27/2026 14:03", us, "America/New_York")).toBe("2026-11-27T19:03:00.000Z");
    expect(parseDateTime("07/01/2026 14:03", us, "America/New_York")).toBe("2026-07-01T18:03:00.000Z");
    expect(parseDateTime("07/01/2026 25:03", us, "UTC")).toBeNull();
  });
});
