from ddp_lessons.tooling.cli import main

raise SystemExit(main())
