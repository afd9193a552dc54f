"""The ladder's site (docs/site.md): its pages, the participants' API."""
