export { useColorMode, resolveColorMode, COLOR_MODE_KEY, type ColorMode, type ResolvedColorMode } from "./colorMode";
export { ColorModeScript } from "./ColorModeScript";
