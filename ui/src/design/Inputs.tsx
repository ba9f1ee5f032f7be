// The design system's text field, text area, checkbox and select: the
// platform's own elements (their keyboard, autofill and accessibility)
// drawn by components.css, so every view's controls look and behave alike.
import { forwardRef, type InputHTMLAttributes, type SelectHTMLAttributes, type TextareaHTMLAttributes } from "react";

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

export const Select = forwardRef<HTMLSelectElement, SelectHTMLAttributes<HTMLSelectElement>>(function Select({ className, ...rest }, ref) {
  return <select ref={ref} className={join("select", className)} {...rest} />;
});
