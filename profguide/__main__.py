from profguide.cli import main

raise SystemExit(main())
