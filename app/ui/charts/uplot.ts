/**
 * uPlot and its stylesheet, in a module of their own: charts import it lazily (see Chart.tsx), so
 * the library loads only on the pages that draw one, after the page's text is on screen.
 */
import "uplot/dist/uPlot.min.css";

export { default } from "uplot";
