// The `express4` dev dependency is Express 4 installed under another name, to test both majors.
declare module "express4" {
  import express from "express";
  export default express;
}
