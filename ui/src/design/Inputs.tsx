// The design system's text field, text area and checkbox: the platform's own
// elements (their keyboard, autofill and accessibility) drawn by
// components.css, so every view's controls look and behave alike. The
// select is Select.tsx (the platform's popup does not take the design).
import { forwardRef, type InputHTMLAttributes, type TextareaHTMLAttributes } from "react";

const join = (base: string, extra?: string) => (extra ? `${base} ${extra}` : base);

export const Input = forwardRef<HTMLInputElement, InputHTMLAttributes<HTMLInputElement>>(function Input({ className, ...rest }, ref) {
  return <input ref={ref} className={join("input", className)} {...rest} />;
});

export const Textarea = forwardRef<HTMLTextAreaElement, TextareaHTMLAttributes<HTMLTextAreaElement>>(function Textarea({ className, ...rest }, ref) {
  return <textarea ref={ref} className={join("textarea", className)} {...rest} />;
});

/** A checkbox (`type` is always checkbox). */
export const Checkbox = forwardRef<HTMLInputElement, Omit<InputHTMLAttributes<HTMLInputElement>, "type">>(function Checkbox({ className, ...rest }, ref) {
  return <input ref={ref} type="checkbox" className={join("checkbox", className)} {...rest} />;
});
