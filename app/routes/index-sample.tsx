import { StyleGuidePage } from "~/features/style-guide/StyleGuidePage";

export const meta = () => [{ title: "UI building blocks · Toolbox" }];

export default StyleGuidePage;
