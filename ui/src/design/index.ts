// The design system: every control of the window comes from here.
export { Button, IconButton } from "./Button";
export { Badge, type Tone } from "./Badge";
export { Modal } from "./Dialog";
export { Disclosure } from "./Disclosure";
export { Field } from "./Field";
export { Checkbox, Input, Textarea } from "./Inputs";
export { Select } from "./Select";
export { Menu, type MenuItem } from "./Menu";
export { Pane, PaneHandle, Panes } from "./Panes";
export { Segmented } from "./Segmented";
export { EmptyState, Skeleton } from "./States";
export { Switch } from "./Switch";
export { Tip, TooltipProvider } from "./Tooltip";
export { ToastProvider, useToast } from "./Toast";
export { initTheme, setThemeChoice, themeChoice, useTheme, type ThemeChoice } from "./theme";
export { plural, took } from "./words";
